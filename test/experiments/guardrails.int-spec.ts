import { replyByRules, waitFor, type AppProcess, type FakeVllm } from '@echoloop/testing';
import { startChatFixture, type ChatFixture } from '../chat/chat-fixture';
import { addLoraCheckpoint, simulateUsers, startJudgedLabeller } from './ab-fixture';

describe('experiment guardrails', () => {
  let f: ChatFixture;
  let judge: FakeVllm;
  let labeller: AppProcess;

  beforeAll(async () => {
    f = await startChatFixture({ EXPERIMENT_GUARDRAIL_CHECK_MS: '500' });
    f.vllm.setReply(replyByRules([], 'Okay.'));
    // The treatment is slow to its first token (well above the noise of a loaded machine, well below the fixture's
    // 1.5 s first-token timeout): the latency guardrail must catch it.
    f.vllm.setFaults((request) =>
      request.model === 'slow-lora' ? { delayBeforeFirstTokenMs: 700 } : undefined,
    );
    ({ labeller, judge } = await startJudgedLabeller(f));
  });

  afterAll(async () => {
    await labeller?.stop();
    await judge?.close();
    await f?.close();
  });

  it('stops a running experiment by itself when a treatment is significantly worse on time to first token', async () => {
    const experimenter = await f.registerWithRoles(['experimenter']);
    await addLoraCheckpoint(f, experimenter.token, 'slow-lora');
    const { body } = await f.http(experimenter.token, 'POST', '/v1/experiments', {
      name: 'slow adapter',
      arms: [
        { id: 'control', checkpointId: 'base', weight: 1, control: true },
        { id: 'slow', checkpointId: 'slow-lora', weight: 1 },
      ],
    });
    await f.http(experimenter.token, 'POST', `/v1/experiments/${body.id}/start`);
    await simulateUsers(f, 12, 1);
    const stopped = await waitFor(
      async () => {
        const experiment = (await f.http(experimenter.token, 'GET', `/v1/experiments/${body.id}`)).body;
        return experiment.status === 'stopped' && experiment;
      },
      { timeoutMs: 90_000, what: 'the guardrail to stop the experiment' },
    ).catch((error: unknown) => {
      // Say why, from the gateway's own account of its guardrail checks.
      const checks = f.gateway
        .logs()
        .split('\n')
        .filter((line) => line.includes('guardrail'));
      throw new Error(`${String(error)}\n${checks.slice(-5).join('\n')}`);
    });
    expect(stopped.stopReason).toBe('guardrail: ttft_ms worse on arm slow');
    const audit = (await f.http(experimenter.token, 'GET', `/v1/experiments/${body.id}/audit`)).body.items;
    expect(audit.at(-1)).toMatchObject({ action: 'stopped', actorId: null });
  }, 180_000);
});
