import { assignArm } from '@echoloop/experiments';
import { MessageEntity } from '@echoloop/persistence';
import { type AppProcess, startApp, stackComponentAsync, waitFor } from '@echoloop/testing';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { insertApiKey } from '../api-keys/insert-api-key';
import { type ChatFixture, startChatFixture } from '../chat/chat-fixture';
import { BASE_MODEL, call, MODEL_URL, ROOT, unloadAdaptersOf } from './refresh-fixture';

const served = async (): Promise<string[]> =>
  ((await call(MODEL_URL, 'GET', '/models')).body.data as { id: string; parent: string | null }[])
    .filter((m) => m.parent !== null)
    .map((m) => m.id);

/** SIGKILL to the engine's whole process group (API server, engine core, worker), as a crash or an OOM kill. */
async function killEngine(): Promise<void> {
  const [pid] = (await readFile(path.join(ROOT, '.infra/run/model.pid'), 'utf8')).trim().split(' ');
  process.kill(-Number(pid), 'SIGKILL');
  await waitFor(
    async () => {
      try {
        await fetch(`${MODEL_URL}/models`, { signal: AbortSignal.timeout(1_000) });
        return false;
      } catch {
        return true;
      }
    },
    { timeoutMs: 10_000, what: 'the engine to be gone' },
  );
}

/**
 * The drill: the real vLLM engine is killed during a running experiment whose candidate arm is a runtime-loaded
 * LoRA adapter (which vLLM forgets on restart) and started again. The adapter reconciler must serve the adapter again
 * by itself, soon; meanwhile every turn fails retryably or goes to the default, and no user message is lost.
 */
describe('the model engine killed and restarted during an experiment', () => {
  let f: ChatFixture;
  let orchestrator: AppProcess;
  let adapterDir: string;
  const checkpointId = `drill-${randomUUID().slice(0, 8)}`;
  const users = new Map<'control' | 'candidate', { token: string; conversationId: string }>();
  /** Messages sent in the two users' conversations. */
  let sent = 0;

  const send = async (arm: 'control' | 'candidate') => {
    const user = users.get(arm);
    if (!user) throw new Error(`no user in ${arm}`);
    sent += 1;
    return f.http(user.token, 'POST', `/v1/conversations/${user.conversationId}/messages`, {
      content: `still there? (${sent})`,
      clientMessageId: randomUUID(),
    });
  };

  /** The engine lists the adapter and the reconciler recorded it loaded (after its warm-up). */
  const servedAndRecorded = async (token: string) => {
    const { body } = await f.http(token, 'GET', '/v1/checkpoints');
    const mine = (body.items as { id: string; servedOn: { state: string }[] }[]).find(
      (c) => c.id === checkpointId,
    );
    return mine?.servedOn[0]?.state === 'loaded' && (await served()).includes(checkpointId);
  };

  beforeAll(async () => {
    adapterDir = await mkdtemp(path.join(tmpdir(), 'echoloop-drill-'));
    execFileSync('bash', [path.join(ROOT, 'tools/stack/model.sh'), 'blank-adapter', adapterDir], {
      stdio: 'pipe',
      timeout: 300_000,
    });
    f = await startChatFixture({
      LLM_BASE_URL: MODEL_URL,
      LLM_MODEL: BASE_MODEL,
      LLM_MAX_TOKENS: '12',
      // A busy CI machine: the engine restarting next to the other suites.
      LLM_FIRST_TOKEN_TIMEOUT_MS: '45000',
      LLM_IDLE_TIMEOUT_MS: '45000',
      DIRECTOR_EVERY_USER_TURNS: '0',
    });
    const { key } = await insertApiKey(f.db, {
      name: 'drill',
      roles: ['experimenter'],
      services: ['chat-gateway', 'rl-orchestrator'],
    });
    orchestrator = await startApp('rl-orchestrator', {
      DATABASE_URL: (f.db.options as { url: string }).url,
      SERVICE_API_KEY: key,
      GATEWAY_URL: f.gateway.url,
      LLM_BASE_URL: MODEL_URL,
      RL_DRIVE_JOBS: 'false',
    });
  }, 600_000);

  afterAll(async () => {
    if (!(await served().catch(() => null))) await stackComponentAsync('model', 'up');
    await orchestrator?.stop();
    if (f) await unloadAdaptersOf(f.db);
    await f?.close();
    await rm(adapterDir, { recursive: true, force: true });
  }, 300_000);

  it('serves the candidate again by itself, and no turn in between is lost or fails for good', async () => {
    const experimenter = await f.registerWithRoles(['experimenter']);
    const created = await f.http(experimenter.token, 'POST', '/v1/checkpoints', {
      id: checkpointId,
      modelName: checkpointId,
      adapterPath: adapterDir,
      endpoints: [{ baseUrl: MODEL_URL, apiKeyEnv: 'LLM_API_KEY' }],
      contextTokens: 2048,
    });
    expect(created.status).toBe(201);
    const { body: defaults } = await f.http(experimenter.token, 'GET', '/v1/checkpoints');
    const defaultId = (defaults.items as { id: string; isDefault: boolean }[]).find((c) => c.isDefault)?.id;
    const { body: experiment } = await f.http(experimenter.token, 'POST', '/v1/experiments', {
      name: 'drill',
      arms: [
        { id: 'control', checkpointId: defaultId, weight: 50, control: true },
        { id: 'candidate', checkpointId, weight: 50 },
      ],
    });
    expect((await f.http(experimenter.token, 'POST', `/v1/experiments/${experiment.id}/start`)).status).toBe(
      200,
    );
    // The reconciler loads the arm's adapter on its own (the experiment's start was announced), warms it up and
    // records it as loaded (what the gateway routes by).
    await waitFor(() => servedAndRecorded(experimenter.token), {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: 'the candidate adapter to be loaded',
    });

    // One user in each arm (the arm is the experiment's hash of the user: new users until both are drawn), each
    // with a first reply from their arm's checkpoint.
    for (let i = 0; i < 40 && users.size < 2; i += 1) {
      const user = await f.register();
      const arm = assignArm(experiment.seed, user.userId, experiment.arms) as 'control' | 'candidate';
      if (users.has(arm)) continue;
      const { body: conversation } = await f.http(user.token, 'POST', '/v1/conversations', {
        characterId: f.characterId,
      });
      users.set(arm, { token: user.token, conversationId: conversation.id });
      // The gateway learns of the placement by notification: a first turn may still go to the default.
      await waitFor(
        async () => {
          const res = await send(arm);
          return (
            res.status === 201 &&
            res.body.reply.checkpointId === (arm === 'candidate' ? checkpointId : defaultId)
          );
        },
        { timeoutMs: 60_000, intervalMs: 500, what: `a reply from the ${arm} arm's checkpoint` },
      );
    }
    expect([...users.keys()].sort()).toEqual(['candidate', 'control']);

    const killedAt = Date.now();
    await killEngine();
    // While the engine is down: a clear, retryable error.
    const down = await send('candidate');
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({ code: 'model_unavailable' });

    await stackComponentAsync('model', 'up');
    const readyAt = Date.now();
    // Before the adapter is back, a candidate turn either fails retryably or is answered by the default.
    const early = await send('candidate');
    if (early.status === 201) expect([checkpointId, defaultId]).toContain(early.body.reply.checkpointId);
    else
      expect(early).toMatchObject({
        status: 503,
        body: { error: { code: expect.stringMatching(/^model_/) } },
      });

    // Served again: listed by the engine, warmed up and recorded as loaded (what the gateway routes by).
    await waitFor(() => servedAndRecorded(experimenter.token), {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: 'the reconciler to serve the adapter on the restarted engine',
    });
    const recoveredAt = Date.now();
    console.log(
      `engine drill: adapter served again ${((recoveredAt - readyAt) / 1000).toFixed(1)} s after the engine was ` +
        `ready, ${((recoveredAt - killedAt) / 1000).toFixed(1)} s after the kill`,
    );
    expect(recoveredAt - readyAt).toBeLessThan(30_000);

    // Both arms answer again, each from its own checkpoint (the gateway learns the placement within seconds).
    await waitFor(
      async () => {
        const res = await send('candidate');
        if (res.status === 201 && res.body.reply.checkpointId === checkpointId) return true;
        throw new Error(
          `last answer ${res.status} ${res.body.error?.code ?? `from ${res.body.reply?.checkpointId}`}`,
        );
      },
      { timeoutMs: 120_000, intervalMs: 1_000, what: 'the candidate arm to answer from its adapter' },
    );
    const control = await send('control');
    expect(control.status).toBe(201);
    expect(control.body.reply.checkpointId).toBe(defaultId);

    // Nothing a user sent was lost: every message is stored, answered or not.
    const stored = await f.db
      .getRepository(MessageEntity)
      .count({ where: [...users.values()].map((u) => ({ conversationId: u.conversationId, role: 'user' })) });
    expect(stored).toBe(sent);
  }, 600_000);
});
