import { ChatModelClient, DEFAULT_CLIENT_OPTIONS } from '@echoloop/llm';
import { startFakeVllm, writeResultFile } from '@echoloop/testing';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDataset, TRUTH_FIELDS } from './dataset';
import { type Evaluation, evaluate } from './evaluate';
import { fastInferrer, type Inferrer, llmInferrer, wrongInferrer } from './inferrers';
import { scriptedExtractionReply } from './scripted-extractor';

const USAGE = `Persona inference evaluation: replays conversations with known traits and prints accuracy per field,
with 95% Wilson intervals and the majority-class baseline.

  npm run eval:persona -- [--dataset heldout|dev|FILE] [--inferrers fast,model,scripted,wrong]
                          [--model-url URL] [--model NAME] [--context-tokens N] [--json FILE] [--result FILE]

  --dataset heldout  32 conversations kept apart from the prompts and rules (default)
            dev      the 16 the prompts and rules were written against
  fast      fast features only (no model)
  model     fast + deep extraction from a real OpenAI-compatible endpoint (default: the local model server)
  scripted  fast + deep extraction from the vLLM-compatible test server replaying each conversation's
            hand-written extraction: a test of the pipeline only
  wrong     a deliberately wrong inferrer (the floor)
  --json    the report with every conversation's misses
  --result  the report with the command, date and machine (bench/results/persona-accuracy.json is the committed one)`;

const out = (text: string) => process.stdout.write(`${text}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      inferrers: { type: 'string', default: 'fast,model' },
      'model-url': { type: 'string', default: process.env.LLM_BASE_URL ?? 'http://127.0.0.1:18000/v1' },
      model: { type: 'string', default: process.env.LLM_MODEL ?? 'smollm2-135m-instruct' },
      'context-tokens': { type: 'string', default: process.env.LLM_CONTEXT_TOKENS ?? '2048' },
      dataset: { type: 'string', default: 'heldout' },
      json: { type: 'string' },
      result: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    out(USAGE);
    return;
  }
  const dataset = loadDataset(values.dataset);
  const names = values.inferrers.split(',').map((name) => name.trim());
  const cleanups: (() => Promise<void>)[] = [];
  const results: Evaluation[] = [];
  try {
    for (const name of names) {
      const inferrer = await makeInferrer(name, values, dataset, cleanups);
      const started = Date.now();
      results.push(
        await evaluate(dataset, inferrer, (done, total, id) =>
          process.stderr.write(`${LINE_START}${name}: ${done}/${total} ${id.padEnd(40)}`),
        ),
      );
      process.stderr.write(
        `${LINE_START}${name}: ${dataset.length} conversations in ${((Date.now() - started) / 1000).toFixed(1)} s${' '.repeat(30)}\n`,
      );
    }
  } finally {
    await Promise.all(cleanups.map((cleanup) => cleanup()));
  }
  out(table(results));
  const report = { dataset: values.dataset, conversations: dataset.length, model: values.model, results };
  const summary = { ...report, results: results.map(({ details: _details, ...rest }) => rest) };
  if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  if (values.result)
    writeResultFile(path.resolve(values.result), ROOT, { ...summary, table: table(results) });
  out(JSON.stringify(summary));
}

async function makeInferrer(
  name: string,
  values: { 'model-url': string; model: string; 'context-tokens': string },
  dataset: ReturnType<typeof loadDataset>,
  cleanups: (() => Promise<void>)[],
): Promise<Inferrer> {
  if (name === 'fast') return fastInferrer();
  if (name === 'wrong') return wrongInferrer();
  if (name === 'scripted') {
    const server = await startFakeVllm({
      model: 'scripted-extractor',
      reply: scriptedExtractionReply(dataset),
    });
    cleanups.push(() => server.close());
    return llmInferrer(
      'scripted',
      new ChatModelClient([{ baseUrl: server.url, apiKey: 'none' }]),
      server.model,
      4_096,
    );
  }
  if (name === 'model') {
    // A small CPU model writes slowly: allow it a minute to start and keep going.
    const client = new ChatModelClient(
      [{ baseUrl: values['model-url'], apiKey: process.env.LLM_API_KEY ?? 'local' }],
      {
        ...DEFAULT_CLIENT_OPTIONS,
        firstTokenTimeoutMs: 60_000,
        idleTimeoutMs: 30_000,
      },
    );
    return llmInferrer(`model:${values.model}`, client, values.model, Number(values['context-tokens']));
  }
  throw new Error(`unknown inferrer "${name}"\n\n${USAGE}`);
}

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Progress rewrites one line on a terminal, and goes line by line into a log. */
const LINE_START = process.stderr.isTTY ? '\r' : '\n';

const pct = (value: number) => `${Math.round(value * 100)}%`;
const interval = ([low, high]: [number, number]) => `[${pct(low)}, ${pct(high)}]`;

/**
 * Accuracy per field and inferrer with its 95% interval; the share right and confident enough to steer the prompt;
 * the majority-class baseline of the set.
 */
function table(results: readonly Evaluation[]): string {
  const width = 34;
  const head = [
    'field'.padEnd(12),
    ...results.map((r) => r.inferrer.padStart(width)),
    'baseline'.padStart(9),
  ].join(' | ');
  const rows = TRUTH_FIELDS.map((field) => {
    const scores = results.map((r) => r.fields.find((f) => f.field === field));
    return [
      field.padEnd(12),
      ...scores.map((score) =>
        score
          ? `${pct(score.accuracy)} ${interval(score.accuracyInterval)} (${pct(score.confidentAccuracy)} sure)`.padStart(
              width,
            )
          : ''.padStart(width),
      ),
      pct(scores[0]?.majorityBaseline ?? 0).padStart(9),
    ].join(' | ');
  });
  const mean = [
    'mean'.padEnd(12),
    ...results.map((r) =>
      `${pct(r.overall.accuracy)} (${pct(r.overall.confidentAccuracy)} sure)`.padStart(width),
    ),
  ].join(' | ');
  const deep = [
    'deep runs'.padEnd(12),
    ...results.map((r) => `${r.deepRuns} (${r.deepDropped} dropped)`.padStart(width)),
  ].join(' | ');
  return [head, '-'.repeat(head.length), ...rows, '-'.repeat(head.length), mean, deep].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
