import { type ChatFixture, startChatFixture } from '../chat/chat-fixture';
import { type StaffServices, startStaffServices } from './staff-services-fixture';

const UUID = /^[0-9a-f-]{36}$/;

describe('the gateway forwards RL jobs and evaluations to the real services', () => {
  let services: StaffServices;
  let gateway: ChatFixture;

  beforeAll(async () => {
    services = await startStaffServices('staffproxy');
    gateway = await startChatFixture(services.gatewayEnv);
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await services?.stop();
  });

  it('lets an experimenter start, read and cancel a refresh; one running is a relayed 409', async () => {
    const { token, userId } = await gateway.registerWithRoles(['user', 'experimenter']);
    expect(await gateway.http(token, 'GET', '/v1/rl/jobs')).toEqual({ status: 200, body: { items: [] } });

    const started = await gateway.http(token, 'POST', '/v1/rl/jobs', { note: 'from the web' });
    expect(started).toMatchObject({ status: 201, body: { status: 'queued', trigger: 'manual' } });
    const jobId = started.body.id as string;
    expect(jobId).toMatch(UUID);

    const again = await gateway.http(token, 'POST', '/v1/rl/jobs', {});
    expect(again).toMatchObject({
      status: 409,
      body: { error: { code: 'refresh_running', details: { jobId, status: 'queued' } } },
    });

    expect(await gateway.http(token, 'GET', `/v1/rl/jobs/${jobId}`)).toMatchObject({
      status: 200,
      body: { id: jobId, status: 'queued', logsTail: null, cancelRequested: false },
    });
    // The job records the person who asked at the gateway, not the gateway's key to the orchestrator.
    expect((await gateway.http(token, 'GET', `/v1/rl/jobs/${jobId}`)).body.requestedBy).toBe(userId);
    expect((await gateway.http(token, 'GET', `/v1/rl/jobs/${crypto.randomUUID()}`)).status).toBe(404);
    expect(await gateway.http(token, 'POST', `/v1/rl/jobs/${jobId}/cancel`)).toEqual({
      status: 202,
      body: { id: jobId, status: 'queued', cancelRequested: true },
    });
    const triggers = await gateway.http(token, 'GET', '/v1/rl/triggers');
    expect(triggers.status).toBe(200);
    expect(triggers.body.decisions[0]).toMatchObject({ trigger: 'manual', decision: 'started', jobId });
  }, 60_000);

  it('lists, runs, reads and compares evaluations; analysts read, plain users are refused', async () => {
    const { token } = await gateway.registerWithRoles(['user', 'experimenter']);
    const analyst = await gateway.registerWithRoles(['user', 'analyst']);
    const user = await gateway.register();

    const base = await services.evaluate('base-1', -4);
    const created = await gateway.http(token, 'POST', '/v1/evaluations', {
      checkpointId: 'candidate-1',
      profiles: ['bench-001'],
    });
    expect(created).toMatchObject({ status: 202, body: { checkpointId: 'candidate-1', status: 'running' } });
    expect(
      (await gateway.http(token, 'POST', '/v1/evaluations', { checkpointId: 'nope' })).body.error.code,
    ).toBe('invalid_checkpoint');

    const list = await gateway.http(analyst.token, 'GET', '/v1/evaluations?limit=10');
    expect(list.status).toBe(200);
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([created.body.id, base]);
    expect(list.body.items[1]).toMatchObject({ status: 'finished', profiles: 2, checkpointId: 'base-1' });
    const finished = await gateway.http(analyst.token, 'GET', '/v1/evaluations?status=finished');
    expect(finished.body.items.map((e: { id: string }) => e.id)).toContain(base);

    const compared = await gateway.http(
      analyst.token,
      'GET',
      `/v1/evaluations/compare?a=${base}&b=${created.body.id}`,
    );
    expect(compared).toMatchObject({ status: 200, body: { a: { id: base, metrics: { count: 2 } } } });
    const one = await gateway.http(analyst.token, 'GET', `/v1/evaluations/${base}`);
    expect(one).toMatchObject({ status: 200, body: { id: base, report: { metrics: { count: 2 } } } });
    const html = await fetch(`${gateway.gateway.url}/v1/evaluations/${base}/report.html`, {
      headers: { authorization: `Bearer ${analyst.token}` },
    });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-security-policy')).toBe('sandbox allow-scripts');
    expect(await html.text()).toMatch(/^<!doctype html>/i);

    expect(
      (await gateway.http(analyst.token, 'POST', '/v1/evaluations', { checkpointId: 'base-1' })).status,
    ).toBe(403);
    expect((await gateway.http(analyst.token, 'POST', '/v1/rl/jobs', {})).status).toBe(403);
    for (const path of ['/v1/evaluations', `/v1/evaluations/${base}`, '/v1/rl/jobs', '/v1/rl/triggers']) {
      expect([path, (await gateway.http(user.token, 'GET', path)).status]).toEqual([path, 403]);
    }
    expect((await gateway.http(undefined, 'GET', '/v1/rl/jobs')).status).toBe(401);
  }, 90_000);

  it('answers 503 with a clear error once a service is down', async () => {
    const { token } = await gateway.registerWithRoles(['user', 'experimenter']);
    const down = await startChatFixture({
      ...services.gatewayEnv,
      RL_ORCHESTRATOR_URL: 'http://127.0.0.1:9',
    });
    try {
      const { token: other } = await down.registerWithRoles(['user', 'experimenter']);
      const res = await down.http(other, 'GET', '/v1/rl/jobs');
      expect(res).toEqual({
        status: 503,
        body: {
          error: {
            code: 'service_unavailable',
            message: 'The RL orchestrator is not reachable; try again shortly',
          },
        },
      });
      expect(JSON.stringify(res.body)).not.toContain(services.gatewayEnv['RL_ORCHESTRATOR_API_KEY']);
    } finally {
      await down.close();
    }
    expect((await gateway.http(token, 'GET', '/v1/rl/jobs')).status).toBe(200);
  }, 60_000);
});
