// The cost of the fast path per user turn: feature extraction alone, then with the merge into a profile, then
// with the guidance and snapshot a turn also builds. Prints a table and one JSON line.
//
//   npm run bench:persona   (or: node -r @swc-node/register bench/persona-fast-path.ts [messages] [rounds])
import {
  emptyProfile,
  extractFastFeatures,
  mergeObservations,
  personaGuidance,
  profileSnapshot,
  type UserProfile,
} from '@echoloop/persona';
import { formatTable, writeBenchResult } from './bench-env';

const MESSAGE_COUNT = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 3);

const SHORT = [
  'ok',
  'idk',
  'yeah',
  'lol',
  'fine I guess',
  'not really',
  'sí',
  'oui',
  'ja',
  'はい',
  '嗯',
  '네',
  'да',
  '😂😂',
];
const OPENERS = [
  'hey',
  'So',
  'Honestly',
  'ngl',
  'Good morning.',
  'By the way,',
  'ugh',
  "I'm 34 and",
  'As a woman in tech,',
  'omg',
];
const BODIES = [
  "my boss yelled at me again today and I'm not happy about it at all",
  'I finally got the job I applied for last month!!',
  "I don't know what to do about my sister, she stopped talking to me",
  'I just need to vent, nobody understands how tired I am rn',
  'was it my fault that the project failed? I keep replaying every meeting',
  'what do you think about moving abroad for a year',
  "I've been feeling kind of lonely since I moved to this city, my friends are all far away",
  'tbh I am so stressed about the exam tomorrow lol 😭',
  'Could you please help me plan a difficult conversation with my partner? Thank you.',
  'we went hiking and it was amazing, the view from the top was unreal 😍',
];
const CLOSERS = ['', '', ' lol', ' 😅', ' What should I do?', ' Anyway.', ' idk', ' :(', ' haha'];
const OTHER_LANGUAGES = [
  'Hola, ¿qué tal? Estoy muy preocupada por mi trabajo y no sé qué hacer.',
  "Bonjour, je suis très fatiguée aujourd'hui et j'ai peur de ne pas y arriver.",
  'Ich bin heute so traurig, mein Freund hat sich nicht gemeldet.',
  'Oi, eu estou muito ansiosa com a entrevista de amanhã, você pode me ajudar?',
  'Ciao, oggi sono molto felice perché ho passato l’esame!',
  '我今天不开心，工作压力太大了，不知道该怎么办。',
  '今日はとても悲しいです。友達とけんかしてしまいました。',
  '오늘 너무 외로워요. 친구들이 다 바빠서 만날 수가 없어요.',
  'Привет, мне 25 лет, и мне сегодня очень одиноко.',
];

/** A deterministic generator, so every run measures the same messages. */
function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function buildMessages(count: number): string[] {
  const random = mulberry32(42);
  const pick = (items: readonly string[]): string => items[Math.floor(random() * items.length)] ?? '';
  const messages: string[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    if (roll < 0.2) messages.push(pick(SHORT));
    else if (roll < 0.35) messages.push(pick(OTHER_LANGUAGES));
    else if (roll < 0.8) messages.push(`${pick(OPENERS)} ${pick(BODIES)}${pick(CLOSERS)}`);
    else messages.push(`${pick(OPENERS)} ${pick(BODIES)}. ${pick(BODIES)}. ${pick(BODIES)}${pick(CLOSERS)}`);
  }
  return messages;
}

interface Row {
  stage: string;
  meanUs: number;
  p50Us: number;
  p95Us: number;
  p99Us: number;
  maxUs: number;
}

function measure(
  stage: string,
  messages: readonly string[],
  turn: (text: string, index: number) => void,
): Row {
  const samples = new Float64Array(messages.length * ROUNDS);
  messages.forEach(turn); // warm-up: compile the patterns and let the JIT settle
  let n = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < messages.length; i++) {
      const started = process.hrtime.bigint();
      turn(messages[i] ?? '', i);
      samples[n++] = Number(process.hrtime.bigint() - started) / 1000;
    }
  }
  const sorted = samples.slice().sort();
  const at = (quantile: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] ?? 0;
  const round = (us: number) => Math.round(us * 100) / 100;
  const mean = samples.reduce((sum, us) => sum + us, 0) / samples.length;
  return {
    stage,
    meanUs: round(mean),
    p50Us: round(at(0.5)),
    p95Us: round(at(0.95)),
    p99Us: round(at(0.99)),
    maxUs: round(at(1)),
  };
}

const messages = buildMessages(MESSAGE_COUNT);
const createdAt = new Date('2025-03-01T12:00:00.000Z');
let profile: UserProfile = emptyProfile();
const rows = [
  measure('extractFastFeatures', messages, (text, i) => {
    extractFastFeatures({ id: `m${i}`, text, createdAt });
  }),
  measure('+ mergeObservations', messages, (text, i) => {
    profile = mergeObservations(profile, extractFastFeatures({ id: `m${i}`, text, createdAt }), createdAt);
  }),
  measure('+ guidance and snapshot', messages, (text, i) => {
    profile = mergeObservations(profile, extractFastFeatures({ id: `m${i}`, text, createdAt }), createdAt);
    personaGuidance(profile, { now: createdAt });
    profileSnapshot(profile, createdAt);
  }),
];

const table =
  `fast path per user turn: ${messages.length} messages × ${ROUNDS} rounds, Node ${process.version}\n` +
  formatTable(
    ['stage', 'mean µs', 'p50 µs', 'p95 µs', 'p99 µs', 'max µs'],
    rows.map((row) => [row.stage, row.meanUs, row.p50Us, row.p95Us, row.p99Us, row.maxUs].map(String)),
  );
process.stdout.write(table);
const result = {
  bench: 'persona-fast-path',
  messages: messages.length,
  rounds: ROUNDS,
  node: process.version,
  rows,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
writeBenchResult('persona-fast-path.json', result, table);
