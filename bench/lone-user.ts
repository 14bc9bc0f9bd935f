// One user chatting with the running product (`./echoloop up`: every app on the real vLLM engine) while the
// background work their own turns cause runs on the same engine: the reward labeller's judges, deep persona
// extraction, the director, summaries. A message every few seconds for some minutes; first token of each reply
// and every error, by code. Writes bench/results/lone-user-<label>.json with the command, date, machine, samples.
//
//   npm run bench:lone-user [-- --gateway http://127.0.0.1:3000 --engine http://127.0.0.1:18000/v1
//     --minutes 5 --every 4 --label yield]   (--label no-yield with MODEL_SIDE_WORK_YIELDS=false in the apps)
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable, log, writeBenchResult } from './bench-env';
import { summarize } from './stats';
import { createUsers, socketTurn } from './stream-clients';

const { values } = parseArgs({
  options: {
    gateway: { type: 'string', default: 'http://127.0.0.1:3000' },
    engine: { type: 'string', default: 'http://127.0.0.1:18000/v1' },
    minutes: { type: 'string', default: '5' },
    every: { type: 'string', default: '4' },
    /** What this run measures (e.g. side work yielding or not), kept in the results and in the file's name. */
    label: { type: 'string', default: 'yield' },
    /** Default: bench/results/lone-user-<label>.json. */
    out: { type: 'string' },
  },
});

// What a user in a hard week says: enough for the persona extraction and the director to have work.
const MESSAGES = [
  'I had a rough day at work, my manager criticised my report in front of everyone.',
  'I keep replaying it in my head and I feel stupid.',
  'I usually plan everything carefully, so it really stung.',
  'My sister says I take things too personally.',
  'Maybe she is right, I do worry a lot about what people think.',
  'I could not sleep well last night either.',
  'Do you think I should talk to my manager about it?',
  'I am scared it would make things worse.',
  'I like quiet evenings, reading helps me calm down.',
  'Thanks for listening, it helps a bit.',
];

/** The engine's finished requests so far (vLLM's Prometheus counter, all models summed). */
async function engineRequests(engine: string): Promise<number> {
  const text = await (await fetch(`${engine.replace(/\/v1\/?$/, '')}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('vllm:request_success_total'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** The first character of the running product, as a signed-in user sees it. */
async function firstCharacter(gateway: string): Promise<string | undefined> {
  const registered = await fetch(`${gateway}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `lone-user-scout-${Date.now()}@example.com`,
      password: 'benchmark-password',
      displayName: 'Scout',
    }),
  });
  const { accessToken } = (await registered.json()) as { accessToken: string };
  const list = await fetch(`${gateway}/v1/characters`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return ((await list.json()) as { items: { id: string }[] }).items[0]?.id;
}

async function main(): Promise<void> {
  const minutes = Number(values.minutes);
  const everyMs = Number(values.every) * 1_000;
  const characterId = await firstCharacter(values.gateway);
  if (!characterId) throw new Error(`no character on ${values.gateway} (is it up and seeded?)`);
  const [user] = await createUsers(values.gateway, 1, characterId);
  if (!user) throw new Error('no user');
  const before = await engineRequests(values.engine);
  const samples: { at: number; ttftMs: number | null; totalMs: number | null; error: string | null }[] = [];
  const started = Date.now();
  for (let i = 0; Date.now() - started < minutes * 60_000; i += 1) {
    const sent = Date.now();
    try {
      const t = await socketTurn(user, `lone-${i}-${sent}`, 120_000, MESSAGES[i % MESSAGES.length]);
      samples.push({ at: sent - started, ttftMs: t.ttftMs, totalMs: t.totalMs, error: null });
      log(`turn ${i + 1}: first token ${Math.round(t.ttftMs)} ms`);
    } catch (error) {
      const code = error instanceof Error ? error.message : String(error);
      samples.push({ at: sent - started, ttftMs: null, totalMs: null, error: code });
      log(`turn ${i + 1}: ${code}`);
    }
    // A message every few seconds from the moment the last one was sent (at once when its reply took longer).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, sent + everyMs - Date.now())));
  }
  user.socket.disconnect();
  const engineWork = (await engineRequests(values.engine)) - before;
  const ttft = samples.flatMap((s) => (s.ttftMs === null ? [] : [s.ttftMs]));
  const whole = samples.flatMap((s) => (s.totalMs === null ? [] : [s.totalMs]));
  const errors: Record<string, number> = {};
  for (const s of samples) if (s.error) errors[s.error] = (errors[s.error] ?? 0) + 1;
  const row = {
    label: values.label,
    turns: samples.length,
    firstTokenMs: summarize(ttft),
    wholeReplyMs: summarize(whole),
    errors,
    modelTimeouts: errors['model_timeout'] ?? 0,
    engineRequests: engineWork,
  };
  const table = formatTable(
    [
      'run',
      'turns',
      'first token p50 ms',
      'p95 ms',
      'max ms',
      'whole reply p50 ms',
      'p95 ms',
      'model_timeout',
      'other errors',
      'engine requests',
    ],
    [
      [
        row.label,
        String(row.turns),
        String(row.firstTokenMs.p50),
        String(row.firstTokenMs.p95),
        String(row.firstTokenMs.max),
        String(row.wholeReplyMs.p50),
        String(row.wholeReplyMs.p95),
        String(row.modelTimeouts),
        String(samples.filter((s) => s.error && s.error !== 'model_timeout').length),
        String(row.engineRequests),
      ],
    ],
  );
  process.stdout.write(table);
  const out = writeBenchResult(
    values.out ? path.resolve(values.out) : `lone-user-${values.label}.json`,
    { row, samples },
    table,
  );
  log(`wrote ${out}`);
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
