import { characterCardSchema } from '@echoloop/character-cards';
import { parseProfilesJsonl, spreadByHiddenNeed } from '@echoloop/sentient';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { episodeDeps } from './sentient/model-calls';
import { runEvaluation } from './sentient/evaluation';

const ROOT = path.resolve(__dirname, '../../..');
const USAGE = `Sentient benchmark (RLVER/SAGE-style simulated users) of one checkpoint.

  npm run eval:sentient -- --policy-model NAME [--policy-url URL] [--simulator-model NAME] [--simulator-url URL]
                           [--mode sage|epm] [--judge-model NAME] [--judge-url URL] [--max-turns N]
                           [--pool benchmark|train] [--profiles FILE] [--limit N] [--concurrency N]
                           [--card FILE] [--context-tokens N] [--max-tokens N] [--out DIR]

--mode sage (default) ends episodes by SAGE's rule (at most 10 turns); --mode epm runs the EPM C/A/P vector,
judged every turn by the judge model (default: the simulator's), up to 45 turns. A judge given in sage mode adds
the vector without changing the stop rule.
The policy is called through the gateway's prompt assembly (character card, live persona guidance, history).
Episodes are appended to DIR/episodes.jsonl as they finish: running again with the same --out resumes.
Writes DIR/report.json and DIR/report.html.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'policy-url': { type: 'string', default: process.env.LLM_BASE_URL ?? 'http://127.0.0.1:18000/v1' },
      'policy-model': { type: 'string', default: process.env.LLM_MODEL ?? 'smollm2-135m-instruct' },
      'simulator-url': { type: 'string' },
      'simulator-model': { type: 'string' },
      mode: { type: 'string', default: 'sage' },
      'judge-url': { type: 'string' },
      'judge-model': { type: 'string' },
      'api-key': { type: 'string', default: process.env.LLM_API_KEY ?? 'local' },
      pool: { type: 'string', default: 'benchmark' },
      profiles: { type: 'string', default: path.join(ROOT, 'data/sentient/profiles.jsonl') },
      limit: { type: 'string' },
      concurrency: { type: 'string', default: '2' },
      card: { type: 'string', default: path.join(ROOT, 'data/characters/echo.card.json') },
      'context-tokens': { type: 'string', default: process.env.LLM_CONTEXT_TOKENS ?? '2048' },
      'max-tokens': { type: 'string', default: '256' },
      'max-turns': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const { profiles, errors } = parseProfilesJsonl(readFileSync(values.profiles, 'utf8'));
  if (errors.length > 0)
    throw new Error(`${values.profiles}: ${errors.map((e) => `line ${e.line}: ${e.error}`).join('; ')}`);
  const chosen = spreadByHiddenNeed(
    profiles.filter((p) => p.pool === values.pool),
    values.limit ? Number(values.limit) : undefined,
  );
  const card = characterCardSchema.parse(JSON.parse(readFileSync(values.card, 'utf8')));
  const contextTokens = Number(values['context-tokens']);
  const policy = {
    baseUrl: values['policy-url'],
    apiKey: values['api-key'],
    model: values['policy-model'],
    contextTokens,
    maxTokens: Number(values['max-tokens']),
  };
  const simulator = {
    ...policy,
    baseUrl: values['simulator-url'] ?? policy.baseUrl,
    model: values['simulator-model'] ?? policy.model,
    maxTokens: 512,
  };
  if (values.mode !== 'sage' && values.mode !== 'epm') throw new Error('--mode is sage or epm');
  const mode = values.mode;
  const judge =
    mode === 'epm' || values['judge-model'] || values['judge-url']
      ? {
          ...simulator,
          baseUrl: values['judge-url'] ?? simulator.baseUrl,
          model: values['judge-model'] ?? simulator.model,
          maxTokens: 1024,
        }
      : undefined;
  const outDir =
    values.out ??
    path.join(ROOT, 'reports/sentient', `${policy.model}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const line = process.stderr.isTTY ? '\r' : '\n';
  const started = Date.now();
  const report = await runEvaluation({
    profiles: chosen,
    deps: episodeDeps(policy, simulator, card, judge),
    outDir,
    concurrency: Number(values.concurrency),
    mode,
    ...(values['max-turns'] && { maxPolicyTurns: Number(values['max-turns']) }),
    title: `Sentient benchmark${mode === 'epm' ? ' (EPM)' : ''}: ${policy.model} (${values.pool}, ${chosen.length} profiles)`,
    pinned: {
      policy: `${policy.model} @ ${policy.baseUrl}`,
      simulator: `${simulator.model} @ ${simulator.baseUrl}`,
      ...(judge && { judge: `${judge.model} @ ${judge.baseUrl}` }),
    },
    onProgress: ({ done, total, resumed, lastProfileId }) => {
      const width = 24;
      const filled = Math.round((done / Math.max(total, 1)) * width);
      const ran = done - resumed;
      const perEpisode = ran > 0 ? (Date.now() - started) / ran : 0;
      const eta = Math.round(((total - done) * perEpisode) / 1_000);
      process.stderr.write(
        `${line}[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} episodes (${resumed} resumed), ETA ${eta} s, last ${lastProfileId}`,
      );
    },
  });
  process.stderr.write('\n');
  process.stdout.write(`${JSON.stringify({ outDir, metrics: report.metrics })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
