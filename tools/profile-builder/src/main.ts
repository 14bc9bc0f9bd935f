import { ChatModelClient } from '@echoloop/llm';
import { parseProfilesJsonl, parseSeedsJsonl, type SentientProfile } from '@echoloop/sentient';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildProfiles, type BuildProgress, type Rejection } from './build';

const ROOT = path.resolve(__dirname, '../../..');
const USAGE = `Sentient-user profile builder: writes a new simulated-user profile for each seed with an LLM, and checks it.

  npm run sentient:build-profiles -- --seeds FILE --out FILE [--existing FILE] [--model NAME] [--url URL]
                                     [--api-key KEY] [--concurrency N] [--max-tokens N] [--temperature T]

  --seeds      JSONL, one seed a line: {"personaType", "traits": [3], "topic", "hiddenNeed", "pool", "id"?, "name"?,
               "dominantAxis"?}; see data/sentient/seeds.example.jsonl
  --out        JSONL the accepted profiles are appended to, one as soon as it is made. Running again with the same
               --out (and the same seeds and --existing) skips the seeds already built.
  --existing   profiles whose ids and names new ones must not reuse (default data/sentient/profiles.jsonl; "" for
               none). Not the --out file: review the new profiles, then append them.

Each seed gets one corrective retry that tells the model what was wrong. Seeds still rejected are listed on stderr
and in <out>.rejected.jsonl (rewritten on each run). The model comes from --url/--model/--api-key, by default
LLM_BASE_URL, LLM_MODEL and LLM_API_KEY. A JSON summary is printed on stdout.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seeds: { type: 'string' },
      out: { type: 'string' },
      existing: { type: 'string', default: path.join(ROOT, 'data/sentient/profiles.jsonl') },
      model: { type: 'string', default: process.env.LLM_MODEL ?? 'smollm2-135m-instruct' },
      url: { type: 'string', default: process.env.LLM_BASE_URL ?? 'http://127.0.0.1:18000/v1' },
      'api-key': { type: 'string', default: process.env.LLM_API_KEY ?? 'local' },
      concurrency: { type: 'string', default: '2' },
      'max-tokens': { type: 'string', default: '2048' },
      temperature: { type: 'string', default: '0.9' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!values.seeds || !values.out) throw new Error(`--seeds and --out are required\n\n${USAGE}`);
  if (values.existing && path.resolve(values.existing) === path.resolve(values.out))
    throw new Error(
      '--out must not be the --existing file: build into a new file, review it, then append it',
    );
  const { seeds, errors } = parseSeedsJsonl(readFileSync(values.seeds, 'utf8'));
  if (errors.length > 0)
    throw new Error(`${values.seeds}: ${errors.map((e) => `line ${e.line}: ${e.error}`).join('; ')}`);
  const client = new ChatModelClient([{ baseUrl: values.url, apiKey: values['api-key'] }], {
    // A large model writing a whole profile can take a while to start and to finish.
    firstTokenTimeoutMs: 120_000,
    idleTimeoutMs: 60_000,
    retries: 1,
    breaker: { failureThreshold: 20, cooldownMs: 5_000 },
  });
  const started = Date.now();
  const summary = await buildProfiles({
    seeds,
    existing: readExisting(values.existing),
    out: values.out,
    client,
    model: values.model,
    concurrency: numberArg('concurrency', values.concurrency, true),
    maxTokens: numberArg('max-tokens', values['max-tokens'], true),
    temperature: numberArg('temperature', values.temperature, false),
    onProgress: (progress) => process.stderr.write(progressLine(progress, started)),
    onRejected: (rejection) => process.stderr.write(rejectionLine(rejection)),
  });
  process.stderr.write('\n');
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  process.stdout.write(`${JSON.stringify({ model: values.model, url: values.url, seconds, ...summary })}\n`);
}

function readExisting(file: string): SentientProfile[] {
  if (!file) return [];
  const { profiles, errors } = parseProfilesJsonl(readFileSync(file, 'utf8'));
  if (errors.length > 0)
    throw new Error(`${file}: ${errors.map((e) => `line ${e.line}: ${e.error}`).join('; ')}`);
  return profiles;
}

/** A positive integer, or with `integer` false any number from 0. */
function numberArg(name: string, value: string, integer: boolean): number {
  const number = Number(value);
  const valid = integer ? Number.isInteger(number) && number > 0 : Number.isFinite(number) && number >= 0;
  if (!valid)
    throw new Error(`--${name} must be ${integer ? 'a positive integer' : 'a number of at least 0'}`);
  return number;
}

/** Progress rewrites one line on a terminal, and goes line by line into a log. */
const TTY = process.stderr.isTTY;
const LINE_START = TTY ? '\r' : '\n';

function progressLine(progress: BuildProgress, started: number): string {
  const { done, total, skipped, accepted, rejected, lastId } = progress;
  const width = 24;
  const filled = Math.round((done / Math.max(total, 1)) * width);
  const perSeed = (Date.now() - started) / Math.max(done - skipped, 1);
  const eta = Math.round(((total - done) * perSeed) / 1_000);
  return (
    `${LINE_START}[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} seeds ` +
    `(${skipped} already built), ${accepted} accepted, ${rejected} rejected, ETA ${eta} s, last ${lastId}`
  );
}

function rejectionLine(rejection: Rejection): string {
  const where = `${rejection.id} (seed ${rejection.seedIndex + 1}, ${rejection.attempts} model calls)`;
  return `\nrejected ${where}: ${rejection.problem}: ${rejection.detail}${TTY ? '\n' : ''}`;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
