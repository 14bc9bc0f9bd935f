import { exportDataset } from '@echoloop/datasets';
import { type AppProcess, type FakeVllm, waitFor } from '@echoloop/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { type ChatFixture, startChatFixture } from '../chat/chat-fixture';
import { addLoraCheckpoint, LORA_REPLY, startJudgedLabeller } from '../experiments/ab-fixture';

/** Enough users that both arms of a 50/50 experiment get some (all in one arm: 2 in 2^12). */
const USERS = 12;
const BASE_REPLY = 'Okay.';

describe('the loop behind /v1/chat/completions: experiments route its users, the labeller labels its turns, exports pair its swipes', () => {
  let f: ChatFixture;
  let labeller: AppProcess;
  let judge: FakeVllm;

  beforeAll(async () => {
    f = await startChatFixture({
      EXPERIMENT_GUARDRAIL_CHECK_MS: '600000',
      RATE_LIMIT_PER_MINUTE: '1000',
      // Data teams see consenting users' turns only.
      TRAINING_CONSENT_DEFAULT: 'true',
    });
    // Numbered, so that a swipe differs from the answer it replaces (a pair needs two texts).
    let n = 0;
    f.vllm.setReply((request) => `${request.model === 'empathy-lora' ? LORA_REPLY : BASE_REPLY} (${++n})`);
    ({ labeller, judge } = await startJudgedLabeller(f));
  });
  afterAll(async () => {
    await labeller?.stop();
    await judge?.close();
    await f?.close();
  });

  it("routes each key's user to an arm, labels every turn, and exports the client's swipe as a preference pair", async () => {
    const experimenter = await f.registerWithRoles(['experimenter', 'analyst']);
    await addLoraCheckpoint(f, experimenter.token, 'empathy-lora');
    const created = await f.http(experimenter.token, 'POST', '/v1/experiments', {
      name: 'clients: empathy adapter vs base',
      arms: [
        { id: 'control', checkpointId: 'base', weight: 50, control: true },
        { id: 'lora', checkpointId: 'empathy-lora', weight: 50 },
      ],
    });
    expect(created.status).toBe(201);
    await f.http(experimenter.token, 'POST', `/v1/experiments/${created.body.id}/start`);

    const seen = new Map<string, string[]>();
    const swipes: string[] = [];
    for (let i = 0; i < USERS; i++) {
      const user = await f.register(`Client${i}`);
      const { body: key } = await f.http(user.token, 'POST', '/v1/me/api-keys', { name: `client-${i}` });
      const client = new OpenAI({ apiKey: key.key, baseURL: `${f.gateway.url}/v1`, maxRetries: 0 });
      const opener = [{ role: 'user' as const, content: 'I had an awful day' }];
      const first = await client.chat.completions.create({ model: 'default', messages: opener });
      // The client regenerates the answer: the same request again.
      const swipe = await client.chat.completions.create({ model: 'default', messages: opener });
      swipes.push(swipe.id);
      // Going on from the swipe it shows keeps it (the web app's "keep this one").
      const shown = swipe.choices[0]!.message.content!;
      const next = await client.chat.completions.create({
        model: 'default',
        messages: [
          ...opener,
          { role: 'assistant', content: shown },
          { role: 'user', content: 'my boss yelled at me' },
        ],
      });
      seen.set(user.userId, [first.choices[0]!.message.content!, shown, next.choices[0]!.message.content!]);
      expect(await f.db.query(`SELECT id FROM conversations WHERE user_id = $1`, [user.userId])).toHaveLength(
        1,
      );
    }

    const assignments = (await f.db.query(
      'SELECT user_id, arm_id FROM experiment_assignments WHERE experiment_id = $1',
      [created.body.id],
    )) as { user_id: string; arm_id: string }[];
    expect(assignments).toHaveLength(USERS);
    for (const { user_id, arm_id } of assignments) {
      const arm = arm_id === 'lora' ? LORA_REPLY : BASE_REPLY;
      // Sticky: the user's every reply, the swipe included, came from their arm's checkpoint.
      expect(seen.get(user_id)?.map((reply) => reply.replace(/ \(\d+\)$/, ''))).toEqual([arm, arm, arm]);
    }
    expect(new Set(assignments.map((a) => a.arm_id))).toEqual(new Set(['control', 'lora']));

    // Every turn (two replies and a swipe per user) is labelled and listed for data teams.
    const labelled = async () => {
      const res = await f.http(experimenter.token, 'GET', '/v1/turns?limit=100');
      return (
        res.body.items as { turnId: string; client: string; rewards: { empathy: number | null } }[]
      ).filter((t) => t.rewards.empathy !== null);
    };
    await waitFor(async () => (await labelled()).length >= USERS * 3, {
      timeoutMs: 90_000,
      what: 'every client turn labelled and listed in GET /v1/turns',
    });
    const listed = await labelled();
    expect(listed.map((t) => t.turnId)).toEqual(expect.arrayContaining(swipes));
    // Each turn says which client asked for it.
    expect(new Set(listed.map((t) => t.client))).toEqual(
      new Set(Array.from({ length: USERS }, (_, i) => `client-${i}`)),
    );

    // The kept swipe reaches the labeller as the user's choice.
    await waitFor(
      async () => {
        const [row] = (await f.db.query(
          `SELECT count(*)::int AS n FROM reward_turns WHERE turn_id = ANY($1) AND signals->>'kept' = 'true'`,
          [swipes],
        )) as { n: number }[];
        return row?.n === USERS;
      },
      { timeoutMs: 30_000, what: 'each kept swipe in its signals' },
    );
    const out = await mkdtemp(path.join(tmpdir(), 'echoloop-openai-'));
    try {
      const { dir } = await exportDataset({
        db: f.db,
        kind: 'preferences',
        format: 'jsonl',
        filters: {},
        outDir: out,
        privacy: { pseudonymKey: 'test-pseudonym-key-0123456789abcdef' },
        consentDefault: true,
      });
      const pairs = (await readFile(path.join(dir, 'preferences.jsonl'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { chosenTurnId: string; rejectedTurnId: string });
      const paired = new Set(pairs.flatMap((p) => [p.chosenTurnId, p.rejectedTurnId]));
      expect(swipes.filter((id) => paired.has(id)).length).toBeGreaterThan(0);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 180_000);
});
