import { ErrorFilter, REQUIRED_ROLES } from '@echoloop/platform';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { EvalRunnerClient } from './eval-runner.client';
import { EvaluationsController } from './evaluations.controller';
import { RlJobsController } from './rl-jobs.controller';
import { RlOrchestratorClient } from './rl-orchestrator.client';

const KEY = 'elk_gateway-secret-key-never-shown';
const JOB = '0b7c1c8e-5d1a-4c3e-9f2b-2a3d4e5f6a7b';
const OTHER = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
/** The signed-in experimenter (the app's guard sets the principal; here a middleware does). */
const USER = '3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a';

interface Seen {
  method: string;
  url: string;
  apiKey: string | undefined;
  body: unknown;
}

/** A stand-in for the RL orchestrator and the eval-runner: records requests, answers what the test says. */
async function fakeUpstream() {
  const seen: Seen[] = [];
  let answer: (req: Seen) => { status: number; body: unknown; type?: string } = () => ({
    status: 200,
    body: { items: [] },
  });
  const read = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  const server: Server = createServer((req, res) => {
    void read(req).then((body) => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        apiKey: req.headers['x-api-key'] as string | undefined,
        body,
      };
      seen.push(request);
      const { status, body: out, type } = answer(request);
      res.writeHead(status, { 'content-type': type ?? 'application/json' });
      res.end(typeof out === 'string' ? out : JSON.stringify(out));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    answer: (next: typeof answer) => (answer = next),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function gatewayWith(env: Partial<GatewayEnv>) {
  const module = await Test.createTestingModule({
    controllers: [RlJobsController, EvaluationsController],
    providers: [
      RlOrchestratorClient,
      EvalRunnerClient,
      { provide: GATEWAY_ENV, useValue: { STAFF_SERVICES_TIMEOUT_MS: 2_000, ...env } },
    ],
  }).compile();
  const app: INestApplication = module.createNestApplication({ logger: false });
  app.use((req: { principal?: unknown }, _res: unknown, next: () => void) => {
    req.principal = { userId: USER, roles: ['experimenter'], kind: 'user' };
    next();
  });
  app.useGlobalFilters(new ErrorFilter());
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url.replace('[::1]', '127.0.0.1')}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      text,
      body: text.startsWith('{') ? JSON.parse(text) : text,
    };
  };
  return { app, call };
}

describe('staff services through the gateway', () => {
  let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
  let gateway: Awaited<ReturnType<typeof gatewayWith>>;

  beforeAll(async () => {
    upstream = await fakeUpstream();
    gateway = await gatewayWith({
      RL_ORCHESTRATOR_URL: upstream.url,
      RL_ORCHESTRATOR_API_KEY: KEY,
      EVAL_RUNNER_URL: upstream.url,
      EVAL_RUNNER_API_KEY: KEY,
    });
  });

  afterAll(async () => {
    await gateway.app.close();
    await upstream.close();
  });

  beforeEach(() => {
    upstream.seen.length = 0;
  });

  it("forwards a list with its query and the gateway's key, and relays the answer", async () => {
    upstream.answer(() => ({ status: 200, body: { items: [{ id: JOB, status: 'training' }] } }));
    const res = await gateway.call('GET', '/v1/rl/jobs?limit=5');
    expect(res).toMatchObject({ status: 200, body: { items: [{ id: JOB, status: 'training' }] } });
    expect(upstream.seen).toEqual([
      { method: 'GET', url: '/v1/rl/jobs?limit=5', apiKey: KEY, body: undefined },
    ]);
  });

  it('forwards a start with its validated body and relays a 409 with its status and body', async () => {
    const refusal = {
      error: {
        code: 'refresh_running',
        message: 'A refresh is already running: cancel it or wait for it to end',
        details: { jobId: JOB, status: 'training' },
      },
    };
    upstream.answer(() => ({ status: 409, body: refusal }));
    const res = await gateway.call('POST', '/v1/rl/jobs', { note: ' by hand ' });
    expect(res).toMatchObject({ status: 409, body: refusal });
    expect(upstream.seen).toEqual([
      // Who asked at the gateway travels with the start, so the job records them and not the gateway's key.
      { method: 'POST', url: '/v1/rl/jobs', apiKey: KEY, body: { note: 'by hand', onBehalfOf: USER } },
    ]);
  });

  it('relays 404s and 422s, and checks ids and bodies itself before forwarding anything', async () => {
    upstream.answer(() => ({
      status: 404,
      body: { error: { code: 'not_found', message: 'RL job not found' } },
    }));
    expect(await gateway.call('GET', `/v1/rl/jobs/${JOB}`)).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'RL job not found' } },
    });
    upstream.seen.length = 0;
    for (const [method, path, body] of [
      ['GET', '/v1/rl/jobs/not-a-uuid'],
      ['POST', `/v1/rl/jobs/${JOB.slice(0, 20)}/cancel`],
      ['GET', '/v1/rl/jobs?limit=0'],
      ['POST', '/v1/rl/jobs', { template: 'rm -rf' }],
      ['GET', `/v1/evaluations/compare?a=${JOB}`],
      ['GET', `/v1/evaluations?status=done`],
      ['POST', '/v1/evaluations', { checkpointId: 'base', limit: 0 }],
    ] as const) {
      const res = await gateway.call(method, path, body);
      expect([path, res.status, res.body.error.code]).toEqual([path, 400, 'validation_failed']);
    }
    expect(upstream.seen).toEqual([]);
  });

  it('relays a refusal that is not in the error shape in the shape', async () => {
    upstream.answer(() => ({ status: 422, body: 'no', type: 'text/plain' }));
    const res = await gateway.call('POST', '/v1/evaluations', { checkpointId: 'base' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'upstream_refused', message: expect.any(String) });
  });

  it('answers 503 (never 401 or 500) when the key is refused upstream, 502 when the service fails', async () => {
    upstream.answer(() => ({
      status: 401,
      body: { error: { code: 'unauthorized', message: `bad ${KEY}` } },
    }));
    const refused = await gateway.call('GET', '/v1/rl/triggers');
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('service_unavailable');
    expect(refused.text).not.toContain(KEY);
    upstream.answer(() => ({
      status: 500,
      body: { error: { code: 'internal', message: 'Internal error' } },
    }));
    expect(await gateway.call('GET', `/v1/evaluations/${JOB}`)).toMatchObject({
      status: 502,
      body: { error: { code: 'bad_gateway' } },
    });
  });

  it('forwards a comparison and the HTML report, sandboxed', async () => {
    upstream.answer((req) =>
      req.url.endsWith('/report.html')
        ? { status: 200, body: '<!doctype html><h1>Report</h1>', type: 'text/html' }
        : { status: 200, body: { a: { id: JOB }, b: { id: OTHER } } },
    );
    const compared = await gateway.call('GET', `/v1/evaluations/compare?a=${JOB}&b=${OTHER}`);
    expect(compared).toMatchObject({ status: 200, body: { a: { id: JOB }, b: { id: OTHER } } });
    expect(upstream.seen[0]?.url).toBe(`/v1/evaluations/compare?a=${JOB}&b=${OTHER}`);
    const html = await gateway.call('GET', `/v1/evaluations/${JOB}/report.html`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html.headers.get('content-security-policy')).toBe('sandbox allow-scripts');
    expect(html.text).toBe('<!doctype html><h1>Report</h1>');
    expect(upstream.seen.every((seen) => seen.apiKey === KEY)).toBe(true);
  });

  it('answers 503 with Retry-After when a service is not reachable, without showing where or the key', async () => {
    const down = await gatewayWith({
      RL_ORCHESTRATOR_URL: 'http://127.0.0.1:9',
      RL_ORCHESTRATOR_API_KEY: KEY,
    });
    try {
      const res = await down.call('GET', '/v1/rl/jobs');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toEqual({
        error: {
          code: 'service_unavailable',
          message: 'The RL orchestrator is not reachable; try again shortly',
        },
      });
    } finally {
      await down.app.close();
    }
  });

  it('answers 503 service_not_configured when a service has no URL or key', async () => {
    const bare = await gatewayWith({ RL_ORCHESTRATOR_URL: upstream.url });
    try {
      for (const [method, path] of [
        ['GET', '/v1/rl/jobs'],
        ['POST', `/v1/rl/jobs/${JOB}/cancel`],
        ['GET', '/v1/evaluations'],
        ['GET', `/v1/evaluations/${JOB}/report.html`],
      ] as const) {
        const res = await bare.call(method, path);
        expect([path, res.status, res.body.error.code]).toEqual([path, 503, 'service_not_configured']);
      }
      expect(upstream.seen).toEqual([]);
    } finally {
      await bare.app.close();
    }
  });

  it("mirrors the services' roles: experimenters act, analysts read", () => {
    const roles = (controller: object, name: string) =>
      Reflect.getMetadata(REQUIRED_ROLES, (controller as Record<string, object>)[name] as object) as string[];
    const rl = RlJobsController.prototype;
    const evals = EvaluationsController.prototype;
    expect(
      Object.fromEntries(
        [
          ['rl list', roles(rl, 'list')],
          ['rl get', roles(rl, 'get')],
          ['rl triggers', roles(rl, 'triggers')],
          ['rl start', roles(rl, 'start')],
          ['rl cancel', roles(rl, 'cancel')],
          ['evaluations list', roles(evals, 'list')],
          ['evaluation', roles(evals, 'get')],
          ['compare', roles(evals, 'compare')],
          ['report', roles(evals, 'html')],
          ['evaluate', roles(evals, 'create')],
        ].map(([name, value]) => [name, value]),
      ),
    ).toEqual({
      'rl list': ['experimenter', 'analyst'],
      'rl get': ['experimenter', 'analyst'],
      'rl triggers': ['experimenter', 'analyst'],
      'rl start': ['experimenter'],
      'rl cancel': ['experimenter'],
      'evaluations list': ['experimenter', 'analyst'],
      evaluation: ['experimenter', 'analyst'],
      compare: ['experimenter', 'analyst'],
      report: ['experimenter', 'analyst'],
      evaluate: ['experimenter'],
    });
  });
});
