import { assignArm } from '@echoloop/experiments';
import { replyByRules, waitFor, type AppProcess, type FakeVllm } from '@echoloop/testing';
import { startChatFixture, type ChatFixture } from '../chat/chat-fixture';
import { addLoraCheckpoint, LORA_REPLY, simulateUsers, startJudgedLabeller } from './ab-fixture';

const USERS = 24;

describe('A/B testing of checkpoints on live traffic', () => {
  let f: ChatFixture;
  let judge: FakeVllm;
  let labeller: AppProcess;
  let experimenter: { token: string; userId: string };

  beforeAll(async () => {
    f = await startChatFixture({ EXPERIMENT_GUARDRAIL_CHECK_MS: '600000' });
    f.vllm.setReply(replyByRules([{ when: { model: 'empathy-lora' }, reply: LORA_REPLY }], 'Okay.'));
    ({ labeller, judge } = await startJudgedLabeller(f));
    experimenter = await f.registerWithRoles(['experimenter']);
  });

  // A test that fails midway would leave its experiment running and routing the next test's users.
  afterEach(async () => {
    if (!experimenter) return; // the setup failed: its error is the one to read
    const { body } = await f.http(experimenter.token, 'GET', '/v1/experiments');
    for (const { id, status } of body.items as { id: string; status: string }[]) {
      if (status === 'running')
        await f.http(experimenter.token, 'POST', `/v1/experiments/${id}/stop`, { reason: 'test ended' });
    }
  });

  afterAll(async () => {
    await labeller?.stop();
    await judge?.close();
    await f?.close();
  });

  const createExperiment = async (name: string) => {
    const res = await f.http(experimenter.token, 'POST', '/v1/experiments', {
      name,
      arms: [
        { id: 'control', checkpointId: 'base', weight: 50, control: true },
        { id: 'lora', checkpointId: 'empathy-lora', weight: 50 },
      ],
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  it('only experimenters and admins can touch experiments', async () => {
    const user = await f.register();
    const analyst = await f.registerWithRoles(['analyst']);
    for (const who of [user, analyst]) {
      expect((await f.http(who.token, 'GET', '/v1/experiments')).status).toBe(403);
      expect((await f.http(who.token, 'POST', '/v1/experiments', { name: 'x', arms: [] })).status).toBe(403);
    }
    expect((await f.http(undefined, 'GET', '/v1/experiments')).status).toBe(401);
    const admin = await f.registerWithRoles(['admin']);
    expect((await f.http(admin.token, 'GET', '/v1/experiments')).status).toBe(200);
    const bad = await f.http(experimenter.token, 'POST', '/v1/experiments', {
      name: 'two controls',
      arms: [
        { id: 'a', checkpointId: 'base', weight: 1, control: true },
        { id: 'b', checkpointId: 'base', weight: 1, control: true },
      ],
    });
    expect(bad.status).toBe(400);
  });

  it('routes users 50/50 by arm, stickily, and the results show each arm’s traffic and the scripted difference', async () => {
    await addLoraCheckpoint(f, experimenter.token, 'empathy-lora');
    const id = await createExperiment('empathy adapter vs base');
    expect((await f.http(experimenter.token, 'POST', `/v1/experiments/${id}/start`)).body.status).toBe(
      'running',
    );

    const replies = await simulateUsers(f, USERS, 2);
    const assignments = (await f.db.query(
      'SELECT user_id, arm_id FROM experiment_assignments WHERE experiment_id = $1',
      [id],
    )) as { user_id: string; arm_id: string }[];
    expect(assignments).toHaveLength(USERS);
    for (const { user_id, arm_id } of assignments) {
      const expected = arm_id === 'lora' ? LORA_REPLY : 'Okay.';
      // Sticky: every reply of the user, across both conversations, came from their arm's checkpoint.
      expect(new Set(replies.get(user_id))).toEqual(new Set([expected]));
    }
    const perArm = (arm: string) => assignments.filter((a) => a.arm_id === arm).length;
    expect(perArm('control')).toBeGreaterThan(3);
    expect(perArm('lora')).toBeGreaterThan(3);

    // Labels arrive; every turn (4 per user) lands in the per-user aggregates.
    await waitFor(
      async () => {
        const [row] = (await f.db.query(
          `SELECT coalesce(sum(turns), 0)::int AS turns FROM experiment_arm_metrics WHERE experiment_id = $1 AND metric = 'empathy'`,
          [id],
        )) as { turns: number }[];
        return (row?.turns ?? 0) >= USERS * 4;
      },
      { timeoutMs: 90_000, what: 'every turn labelled into the experiment' },
    );
    const response = await f.http(experimenter.token, 'GET', `/v1/experiments/${id}/results`);
    expect(response).toMatchObject({ status: 200 });
    const results = response.body;
    expect(results.arms.map((a: { id: string; users: number }) => [a.id, a.users])).toEqual([
      ['control', perArm('control')],
      ['lora', perArm('lora')],
    ]);
    expect(results.srm.alert).toBe(false);
    const empathy = results.metrics.find((m: { metric: string }) => m.metric === 'empathy');
    const arm = (armId: string) => empathy.arms.find((a: { armId: string }) => a.armId === armId);
    expect(arm('control')).toMatchObject({
      users: perArm('control'),
      turns: perArm('control') * 4,
      mean: 0.25,
    });
    expect(arm('lora')).toMatchObject({ users: perArm('lora'), mean: 1 });
    const [comparison] = empathy.comparisons;
    expect(comparison.welch.difference).toBeCloseTo(0.75, 10);
    expect(comparison.probabilityToBeatControl).toBeGreaterThan(0.99);

    // User-level metrics: each user had 2 conversations of 2 turns, all today.
    const metric = (name: string) => results.metrics.find((m: { metric: string }) => m.metric === name);
    for (const a of metric('turns_per_conversation').arms) expect(a.mean).toBe(2);
    for (const a of metric('next_day_return').arms) expect(a).toMatchObject({ mean: 0 });

    const audit = (await f.http(experimenter.token, 'GET', `/v1/experiments/${id}/audit`)).body.items;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['created', 'started']);
    expect(audit.every((e: { actorId: string }) => e.actorId === experimenter.userId)).toBe(true);

    // Promote: the adapter becomes everyone's default.
    const promoted = await f.http(experimenter.token, 'POST', `/v1/experiments/${id}/promote`, {
      armId: 'lora',
    });
    expect(promoted.body).toMatchObject({ status: 'promoted', promotedArmId: 'lora' });
    const checkpoints = (await f.http(experimenter.token, 'GET', '/v1/checkpoints')).body.items;
    expect(checkpoints.find((c: { isDefault: boolean }) => c.isDefault).id).toBe('empathy-lora');
  }, 240_000);

  it('keeps assigned users on their arm when the weights change, and audits who changed them', async () => {
    const id = await createExperiment('weights');
    await f.http(experimenter.token, 'POST', `/v1/experiments/${id}/start`);
    const users = await Promise.all(Array.from({ length: 6 }, () => f.register()));
    const armOf = async (userId: string) =>
      (
        (await f.db.query(
          'SELECT arm_id FROM experiment_assignments WHERE experiment_id = $1 AND user_id = $2',
          [id, userId],
        )) as {
          arm_id: string;
        }[]
      )[0]?.arm_id;
    for (const user of users) {
      const { body } = await f.http(user.token, 'POST', '/v1/conversations', { characterId: f.characterId });
      await f.http(user.token, 'POST', `/v1/conversations/${body.id}/messages`, {
        content: 'hi',
        clientMessageId: 'w1',
      });
    }
    const before = await Promise.all(users.map((u) => armOf(u.userId)));
    const changed = await f.http(experimenter.token, 'PATCH', `/v1/experiments/${id}/weights`, {
      weights: { control: 0, lora: 100 },
    });
    expect(changed.status).toBe(200);
    for (const user of users) {
      const { body } = await f.http(user.token, 'POST', '/v1/conversations', { characterId: f.characterId });
      await f.http(user.token, 'POST', `/v1/conversations/${body.id}/messages`, {
        content: 'hi again',
        clientMessageId: 'w2',
      });
    }
    expect(await Promise.all(users.map((u) => armOf(u.userId)))).toEqual(before);
    const newcomer = await f.register();
    const { body } = await f.http(newcomer.token, 'POST', '/v1/conversations', {
      characterId: f.characterId,
    });
    await f.http(newcomer.token, 'POST', `/v1/conversations/${body.id}/messages`, {
      content: 'hello',
      clientMessageId: 'n1',
    });
    expect(await armOf(newcomer.userId)).toBe('lora');
    const stopped = await f.http(experimenter.token, 'POST', `/v1/experiments/${id}/stop`, {
      reason: 'done',
    });
    expect(stopped.body).toMatchObject({ status: 'stopped', stopReason: 'done' });
    const audit = (await f.http(experimenter.token, 'GET', `/v1/experiments/${id}/audit`)).body.items;
    expect(audit.map((e: { action: string }) => e.action)).toEqual([
      'created',
      'started',
      'weights_changed',
      'stopped',
    ]);
    expect((await f.http(experimenter.token, 'POST', `/v1/experiments/${id}/start`)).status).toBe(409);
  }, 120_000);

  it('retires checkpoints, but never the default, and experiments cannot use a retired one', async () => {
    await f.http(experimenter.token, 'POST', '/v1/checkpoints', {
      id: 'old-ckpt',
      modelName: 'fake-base-model',
      endpoints: [{ baseUrl: f.vllm.url }],
    });
    expect((await f.http(experimenter.token, 'POST', '/v1/checkpoints/old-ckpt/retire')).body.status).toBe(
      'retired',
    );
    const defaultId = (await f.http(experimenter.token, 'GET', '/v1/checkpoints')).body.items.find(
      (c: { isDefault: boolean }) => c.isDefault,
    ).id;
    expect((await f.http(experimenter.token, 'POST', `/v1/checkpoints/${defaultId}/retire`)).status).toBe(
      409,
    );
    const res = await f.http(experimenter.token, 'POST', '/v1/experiments', {
      name: 'with a retired arm',
      arms: [
        { id: 'control', checkpointId: defaultId, weight: 1, control: true },
        { id: 'old', checkpointId: 'old-ckpt', weight: 1 },
      ],
    });
    expect(res.status).toBe(422);
  });

  it('detects a sample ratio mismatch when assignment is skewed', async () => {
    const id = await createExperiment('skewed');
    const users = (await f.db.query(`SELECT id FROM users LIMIT 30`)) as { id: string }[];
    // 80/20 against weights of 50/50, written as if assignment had been broken.
    for (const [i, user] of users.entries()) {
      await f.db.query(
        'INSERT INTO experiment_assignments (experiment_id, user_id, arm_id) VALUES ($1, $2, $3)',
        [id, user.id, i % 5 === 0 ? 'lora' : 'control'],
      );
    }
    const many = (await f.db.query(
      `INSERT INTO users (email, display_name) SELECT 'srm-' || g || '-' || $1 || '@example.com', 'x' FROM generate_series(1, 970) g RETURNING id`,
      [Date.now()],
    )) as { id: string }[];
    for (const [i, user] of many.entries()) {
      await f.db.query(
        'INSERT INTO experiment_assignments (experiment_id, user_id, arm_id) VALUES ($1, $2, $3)',
        [id, user.id, i % 5 === 0 ? 'lora' : 'control'],
      );
    }
    const results = (await f.http(experimenter.token, 'GET', `/v1/experiments/${id}/results`)).body;
    expect(results.srm).toMatchObject({ alert: true, mismatch: true });
    expect(results.srm.pValue).toBeLessThan(0.001);
  }, 120_000);

  it('users who chatted before their exposure bring a pre-period, recorded once, and the results carry CUPED over it', async () => {
    await addLoraCheckpoint(f, experimenter.token, 'cuped-lora');
    const users = await Promise.all(Array.from({ length: 8 }, () => f.register()));
    const say = async (user: { token: string }, contents: string[]) => {
      const { body: conversation } = await f.http(user.token, 'POST', '/v1/conversations', {
        characterId: f.characterId,
      });
      for (const [t, content] of contents.entries()) {
        const res = await f.http(user.token, 'POST', `/v1/conversations/${conversation.id}/messages`, {
          content,
          clientMessageId: `${conversation.id}-${t}`,
        });
        expect(res.status).toBe(201);
      }
    };
    // Before the experiment: each user's first turn is finished (answered by their second message).
    for (const user of users) await say(user, ['I had an awful day', 'my boss yelled at me']);
    const ids = users.map((u) => u.userId);
    await waitFor(
      async () => {
        const [row] = (await f.db.query(
          `SELECT count(DISTINCT user_id)::int AS users FROM reward_turns
           WHERE user_id = ANY($1::uuid[]) AND cardinality(labelled_versions) > 0`,
          [ids],
        )) as { users: number }[];
        return row?.users === users.length;
      },
      { timeoutMs: 90_000, what: "each user's first turn labelled before the experiment" },
    );
    const arms = [
      { id: 'control', checkpointId: 'base', weight: 50, control: true },
      { id: 'lora', checkpointId: 'cuped-lora', weight: 50 },
    ];
    // A seed that puts at least 3 of these users in each arm, so that both arms can be compared.
    const split = (seed: string) => ids.filter((u) => assignArm(seed, u, arms) === 'lora').length;
    const seed = Array.from({ length: 50 }, (_, i) => `cuped-${i}`).find((s) => [3, 4, 5].includes(split(s)));
    const res = await f.http(experimenter.token, 'POST', '/v1/experiments', { name: 'cuped', arms, seed });
    const id = res.body.id as string;
    await f.http(experimenter.token, 'POST', `/v1/experiments/${id}/start`);
    for (const user of users) await say(user, ['still thinking about it', 'thanks for listening']);

    const prePeriods = await waitFor(
      async () => {
        const rows = (await f.db.query(
          `SELECT user_id, values, turns FROM experiment_user_pre_periods WHERE experiment_id = $1`,
          [id],
        )) as { user_id: string; values: Record<string, number>; turns: number }[];
        return rows.length === users.length && rows;
      },
      { timeoutMs: 90_000, what: 'every user in the experiment with a pre-period' },
    );
    // The pre-period is the users' own turns before exposure, all on the same default checkpoint (whichever an earlier
    // test left: the base model, judged 0.25, or the promoted adapter, judged 1).
    for (const row of prePeriods) {
      expect(ids).toContain(row.user_id);
      expect(row.turns).toBeGreaterThanOrEqual(1);
      expect([0.25, 1]).toContain(row.values['empathy']);
    }
    expect(new Set(prePeriods.map((row) => row.values['empathy'])).size).toBe(1);
    const results = (await f.http(experimenter.token, 'GET', `/v1/experiments/${id}/results`)).body;
    const [comparison] = results.metrics.find((m: { metric: string }) => m.metric === 'empathy').comparisons;
    expect(comparison.cuped).toMatchObject({ usersWithPrePeriod: split(seed ?? '') });
    // Everyone's pre-period empathy was the same: nothing to take out, the adjusted difference is the raw one.
    expect(comparison.cuped.difference).toBeCloseTo(comparison.welch.difference, 10);
    expect(comparison.holmPValue).toBeGreaterThanOrEqual(comparison.cuped.pValue);
  }, 240_000);
});
