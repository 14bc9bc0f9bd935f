import { ChatModelClient } from '@echoloop/llm';
import { type ProfileSeed, parseProfilesJsonl, type SentientProfile } from '@echoloop/sentient';
import { type FakeVllm, startFakeVllm } from '@echoloop/testing';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildProfiles, type BuildSummary, type Rejection, rejectedFileFor } from './build';

const seed = (topic: string, hiddenNeed: ProfileSeed['hiddenNeed']): ProfileSeed => ({
  personaType: 'passive',
  traits: ['gentle', 'dutiful', 'tired'],
  topic,
  hiddenNeed,
  pool: 'train',
});
const seeds = [
  seed('topic-fine', 'deep-empathy'),
  seed('topic-leaky', 'practical-advice'),
  seed('topic-hopeless', 'listen-while-venting'),
];
const existing: SentientProfile[] = parseProfilesJsonl(
  readFileSync(path.resolve(__dirname, '../../../data/sentient/profiles.jsonl'), 'utf8'),
).profiles.slice(0, 2);

function answer(
  name: string,
  firstMessage: string,
  reactions = { high: 'Opens up.', medium: 'Facts.', low: 'Silent.' },
) {
  return JSON.stringify({
    persona: {
      name,
      age: 41,
      gender: 'female',
      occupation: 'bus driver in Porto',
      hobbies: ['fado', 'crosswords'],
      habits: 'Early riser; counts change twice.',
      speakingStyle: 'Short, polite, apologetic.',
      initiative: 'passive',
    },
    scene: {
      background: 'Her depot was sold in March and the new owner cut the night routes.',
      conflict: 'Her sister says she should be grateful to have any shifts.',
      difficulties: 'Asked the union twice; no answer.',
      currentState: 'Worn out.',
      reactions,
      raisesEmotion: 'Being taken seriously.',
      lowersEmotion: 'Being told to cheer up.',
    },
    firstMessage,
    empathy: { dominantAxis: 'affective' },
  });
}

/** The scripted model: what it writes for each seed, attempt by attempt (found by the seed's topic). */
const SCRIPT: Record<string, string[]> = {
  'topic-fine': [answer('Marta Sousa', 'They cut the night routes. Mine included.')],
  'topic-leaky': [
    answer('Lena Okafor', 'Can you give me some practical advice? My rent went up.'),
    answer('Lena Okafor', 'My rent went up 30% and the lease ends in June.'),
  ],
  'topic-existing-name': [answer(existing[0]!.persona.name, 'hello'), answer('Ada Quint', 'hello')],
  'topic-twin-a': [answer('Nora Vance', 'hello'), answer('Nora Vale', 'hello')],
  'topic-twin-b': [answer('Nora Vance', 'hello'), answer('Nora Vane', 'hello')],
  'topic-hopeless': [
    answer('Ida Berg', 'hi', { high: 'Talks.', medium: 'Talks.', low: 'Talks.' }),
    answer('Ida Berg', 'hi', { high: 'Talks.', medium: 'Talks.', low: 'talks' }),
  ],
};

interface Body {
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; schema?: object } };
}

describe('profile builder on the vLLM-compatible test server', () => {
  let server: FakeVllm;
  let dir: string;
  let out: string;
  const calls = new Map<string, number>();

  beforeAll(async () => {
    server = await startFakeVllm({
      model: 'writer',
      maxModelLen: 16_384,
      reply: (request) => {
        const name = (request.response_format as Body['response_format'])?.json_schema?.name;
        if (name !== 'sentient_profile') throw new Error(`unexpected response format ${name}`);
        const last = request.messages.at(-1)?.content ?? '';
        const topic = Object.keys(SCRIPT).find((t) => last.includes(`Topic: ${t}`));
        if (!topic) throw new Error('no scripted topic in the request');
        const attempt = calls.get(topic) ?? 0;
        calls.set(topic, attempt + 1);
        const script = SCRIPT[topic]!;
        return script[Math.min(attempt, script.length - 1)]!;
      },
    });
    dir = mkdtempSync(path.join(tmpdir(), 'profile-builder-'));
    out = path.join(dir, 'nested', 'generated.jsonl');
  });

  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (rejected: Rejection[] = [], concurrency = 2): Promise<BuildSummary> =>
    buildProfiles({
      seeds,
      existing,
      out,
      client: new ChatModelClient([{ baseUrl: server.url, apiKey: 'k' }]),
      model: 'writer',
      concurrency,
      maxTokens: 2048,
      temperature: 0.9,
      onRejected: (rejection) => rejected.push(rejection),
    });
  const requestsFor = (topic: string) =>
    server.requests
      .map((r) => r.body as Body)
      .filter((body) => body.messages.some((m) => m.content.includes(`Topic: ${topic}`)));

  it('accepts a good first answer, accepts a fixed second one, and rejects a seed bad twice', async () => {
    const rejected: Rejection[] = [];
    const summary = await run(rejected);
    expect(summary).toMatchObject({
      total: 3,
      skipped: 0,
      accepted: 2,
      retried: 1,
      rejected: 1,
      modelCalls: 5,
    });

    const { profiles, errors } = parseProfilesJsonl(readFileSync(out, 'utf8'));
    expect(errors).toEqual([]);
    expect(profiles.map((p) => p.id).sort()).toEqual([
      'gen-train-deep-empathy-001',
      'gen-train-practical-advice-002',
    ]);
    const leaky = profiles.find((p) => p.topic === 'topic-leaky');
    expect(leaky).toMatchObject({
      hiddenNeed: 'practical-advice',
      personaType: 'passive',
      firstMessage: 'My rent went up 30% and the lease ends in June.',
    });
    // Nothing of the rejected seed is in the output.
    expect(readFileSync(out, 'utf8')).not.toContain('Ida Berg');
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2);

    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({
      id: 'gen-train-listen-while-venting-003',
      seedIndex: 2,
      problem: 'same_reactions',
      attempts: 2,
    });
    expect(rejected[0]?.detail).toContain(
      'scene.reactions.high and scene.reactions.medium say the same thing',
    );
    const listed = readFileSync(rejectedFileFor(out), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id: 'gen-train-listen-while-venting-003',
      seed: { topic: 'topic-hopeless' },
    });
    expect(summary.rejections).toEqual([
      expect.objectContaining({ id: 'gen-train-listen-while-venting-003', problem: 'same_reactions' }),
    ]);
  });

  it('asks with the JSON schema and tells the model the exact problem on the retry', () => {
    const [first, retry] = requestsFor('topic-leaky');
    expect(first?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'sentient_profile', schema: { type: 'object' } },
    });
    expect(first?.messages.at(-1)?.content).not.toContain('could not be used');
    expect(retry?.messages.at(-1)?.content).toContain(
      'Your previous answer could not be used: firstMessage names the hidden need ("practical advice")',
    );
    expect(requestsFor('topic-fine')).toHaveLength(1);
  });

  it('skips the seeds already built when run again, without a model call for them', async () => {
    const before = { fine: requestsFor('topic-fine').length, leaky: requestsFor('topic-leaky').length };
    const rejected: Rejection[] = [];
    const summary = await run(rejected, 1);
    expect(summary).toMatchObject({ total: 3, skipped: 2, accepted: 0, rejected: 1 });
    expect(requestsFor('topic-fine')).toHaveLength(before.fine);
    expect(requestsFor('topic-leaky')).toHaveLength(before.leaky);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2);
    // The rejected list is the latest run's.
    expect(readFileSync(rejectedFileFor(out), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  const buildInto = (file: string, only: readonly ProfileSeed[]) =>
    buildProfiles({
      seeds: only,
      existing,
      out: path.join(dir, file),
      client: new ChatModelClient([{ baseUrl: server.url, apiKey: 'k' }]),
      model: 'writer',
      concurrency: 2,
      maxTokens: 2048,
      temperature: 0.9,
    });

  it('rejects without a model call a seed whose fixed name is already used', async () => {
    const before = server.requests.length;
    const summary = await buildInto('fixed-name.jsonl', [{ ...seeds[0]!, name: existing[0]!.persona.name }]);
    expect(server.requests.length).toBe(before);
    expect(summary.rejections).toEqual([expect.objectContaining({ problem: 'name_taken', attempts: 0 })]);
    expect(existsSync(path.join(dir, 'fixed-name.jsonl'))).toBe(false);
  });

  it('never reuses a name: not an existing one, nor one taken by a profile built alongside', async () => {
    const summary = await buildInto('names.jsonl', [
      seed('topic-existing-name', 'deep-empathy'),
      seed('topic-twin-a', 'deep-empathy'),
      seed('topic-twin-b', 'deep-empathy'),
    ]);
    expect(summary).toMatchObject({ accepted: 3, retried: 2, rejected: 0, modelCalls: 5 });
    const { profiles } = parseProfilesJsonl(readFileSync(path.join(dir, 'names.jsonl'), 'utf8'));
    const names = profiles.map((p) => p.persona.name);
    expect(new Set(names).size).toBe(3);
    expect(names).not.toContain(existing[0]!.persona.name);
    const retried = [...requestsFor('topic-twin-a'), ...requestsFor('topic-twin-b')].filter((body) =>
      body.messages.at(-1)?.content.includes('persona.name "Nora Vance" is already used'),
    );
    expect(retried).toHaveLength(1);
  });
});
