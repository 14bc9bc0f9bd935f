import { readFileSync } from 'node:fs';
import OpenAI from 'openai';

// Measures a running model server through the OpenAI API: time to first token, prompt (prefill) and
// decode rates, and the server's RSS when MODEL_SERVER_PID is given.
// Usage: MODEL_BASE_URL=http://127.0.0.1:18000/v1 [MODEL_SERVER_PID=<pid>] \
//        node -r @swc-node/register tools/model-server/src/measure-speed.ts
const baseURL = process.env['MODEL_BASE_URL'] ?? 'http://127.0.0.1:18000/v1';
const client = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0 });
const filler = 'The river bends past the old mill, where the miller keeps bread warm for travellers. ';

interface Sample {
  promptTokens: number;
  completionTokens: number;
  ttftMs: number;
  totalMs: number;
}

async function measure(model: string, system: string, maxTokens: number): Promise<Sample> {
  const startedAt = performance.now();
  let firstAt: number | undefined;
  let usage: OpenAI.CompletionUsage | undefined;
  const stream = await client.chat.completions.create({
    model,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: 'Tell me a long, detailed story about a lighthouse keeper and a storm.' },
    ],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: maxTokens,
    temperature: 0,
  });
  for await (const chunk of stream) {
    if (chunk.choices[0]?.delta.content) firstAt ??= performance.now();
    if (chunk.usage) usage = chunk.usage;
  }
  const totalMs = performance.now() - startedAt;
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    ttftMs: (firstAt ?? totalMs) - startedAt,
    totalMs,
  };
}

function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function rssMiB(pid: string | undefined): string {
  if (!pid) return 'n/a (set MODEL_SERVER_PID)';
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return line ? `${Math.round(Number(line.replace(/\D/g, '')) / 1024)} MiB` : 'unknown';
}

async function main(): Promise<void> {
  const model = (await client.models.list()).data[0]?.id;
  if (!model) throw new Error(`${baseURL}/models lists no model`);
  report(`model ${model} at ${baseURL}; RSS before: ${rssMiB(process.env['MODEL_SERVER_PID'])}`);
  await measure(model, 'warm-up', 8);
  for (const repeats of [1, 8, 40]) {
    const samples: Sample[] = [];
    for (let run = 0; run < 3; run += 1) {
      // A fresh first word defeats the KV-cache prefix reuse, so each run pays the full prefill.
      samples.push(
        await measure(model, `Run ${repeats}-${run}-${Date.now()}. ${filler.repeat(repeats)}`, 128),
      );
    }
    const prompt = median(samples.map((sample) => sample.promptTokens));
    const ttft = median(samples.map((sample) => sample.ttftMs));
    const decodeRate = median(
      samples.map((sample) => (sample.completionTokens - 1) / ((sample.totalMs - sample.ttftMs) / 1000)),
    );
    const completion = median(samples.map((sample) => sample.completionTokens));
    report(
      `prompt ${prompt} tok: TTFT ${ttft.toFixed(0)} ms (~${((prompt / ttft) * 1000).toFixed(0)} prompt tok/s), ` +
        `decode ${decodeRate.toFixed(1)} tok/s over ${completion} tokens`,
    );
  }
  const cachedSystem = `Cached. ${filler.repeat(40)}`;
  await measure(model, cachedSystem, 4);
  const cached = await measure(model, cachedSystem, 4);
  report(
    `same ${cached.promptTokens}-token prompt again (prefix reuse): TTFT ${cached.ttftMs.toFixed(0)} ms`,
  );
  report(`RSS after: ${rssMiB(process.env['MODEL_SERVER_PID'])}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
