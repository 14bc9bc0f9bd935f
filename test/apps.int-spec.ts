import { chatTurnCompletedV1, chatTurnCompletedV1Example, createEvent } from '@echoloop/contracts';
import { EventPublisher } from '@echoloop/platform';
import {
  freshLabellerGroup,
  runAppUntilExit,
  startApp,
  testKafka,
  uniqueName,
  waitFor,
  type AppProcess,
} from '@echoloop/testing';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';

const APPS = ['chat-gateway', 'reward-labeller', 'rl-orchestrator', 'eval-runner'] as const;

/** The metric names a /metrics page declares (its `# TYPE` lines), with the series a histogram or summary adds. */
const declared = (text: string): string[] =>
  [...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].flatMap(([, name = '', type]) =>
    type === 'histogram' || type === 'summary'
      ? [name, `${name}_bucket`, `${name}_sum`, `${name}_count`]
      : [name],
  );
/** What each app exports, filled in as its suite scrapes it; the dashboards' check below reads it. */
const exported = new Map<string, string[]>();

const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
};

describe.each(APPS)('%s on the real stack', (app) => {
  let running: AppProcess;

  beforeAll(async () => {
    running = await startApp(app, { LABELLER_GROUP_ID: await freshLabellerGroup() });
  });

  afterAll(async () => {
    expect(await running.stop()).toBe('graceful');
  });

  it('is live, and ready because PostgreSQL and Kafka answer', async () => {
    expect((await getJson(`${running.url}/health/live`)).body).toEqual({ status: 'ok' });
    const ready = await getJson(`${running.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ok',
      checks: { database: { status: 'up' }, kafka: { status: 'up' } },
    });
  });

  it('serves Prometheus metrics labelled with the service', async () => {
    await fetch(`${running.url}/health/live`);
    const res = await fetch(`${running.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toContain(`process_cpu_user_seconds_total{service="${app}"}`);
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/health\/live"[^}]*\} [1-9]/);
    exported.set(app, declared(text));
  });

  it('writes structured JSON logs', () => {
    const lines = running
      .logs()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines)
      expect(JSON.parse(line)).toMatchObject({ service: app, level: expect.any(String) });
  });
});

describe('the dashboards and alerts of deploy/observability', () => {
  it('read only metrics the apps or vLLM export', async () => {
    const root = path.resolve(__dirname, '..');
    const { stdout } = await promisify(execFile)('bash', ['tools/ci/validate-observability.sh', 'metrics'], {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    });
    const report = JSON.parse(stdout) as {
      uses: { name: string; where: string }[];
      recorded: string[];
      errors: string[];
    };
    const model = new URL('/metrics', process.env['MODEL_BASE_URL'] ?? 'http://127.0.0.1:18000/v1');
    const vllm = declared(await (await fetch(model)).text());
    expect(vllm).toContain('vllm:num_requests_running');
    expect([...exported.keys()]).toEqual([...APPS]);
    // `up` is Prometheus' own series for every target; recording rules name theirs.
    const known = new Set([...[...exported.values()].flat(), ...vllm, ...report.recorded, 'up']);
    expect(report.errors).toEqual([]);
    expect(report.uses.length).toBeGreaterThan(40);
    expect(
      report.uses.filter((use) => !known.has(use.name)).map((use) => `${use.name} in ${use.where}`),
    ).toEqual([]);
  }, 300_000);
});

describe('start-up configuration', () => {
  it.each(APPS)('%s refuses to start on a bad variable and names it', async (app) => {
    const { code, output } = await runAppUntilExit(app, { PORT: 'eighty', DATABASE_URL: 'mysql://db/x' });
    expect(code).toBe(1);
    expect(output).toMatch(/PORT: /);
    expect(output).toMatch(/DATABASE_URL: /);
  });
});

describe('readiness when Kafka is unreachable', () => {
  it('still starts, reports not ready with Retry-After, and says why', async () => {
    const app = await startApp('chat-gateway', { KAFKA_BROKERS: '127.0.0.1:1' });
    try {
      const ready = await getJson(`${app.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('5');
      expect(ready.body).toMatchObject({
        status: 'unavailable',
        checks: { database: { status: 'up' }, kafka: { status: 'down' } },
      });
    } finally {
      await app.stop();
    }
  });
});

describe('turn events across apps', () => {
  it('a turn published to chat.turn.completed.v1 reaches the reward labeller', async () => {
    const labeller = await startApp('reward-labeller', { LABELLER_GROUP_ID: await freshLabellerGroup() });
    const publisher = new EventPublisher(testKafka('e2e'));
    try {
      const checkpointId = uniqueName('ckpt');
      const event = createEvent(
        chatTurnCompletedV1,
        { ...chatTurnCompletedV1Example.payload, turnId: randomUUID(), checkpointId } as never,
        'e2e',
      );
      await publisher.publish(chatTurnCompletedV1, event, event.payload.conversationId);
      await waitFor(
        async () => {
          const text = await (await fetch(`${labeller.url}/metrics`)).text();
          return text.includes(
            `labeller_turns_received_total{checkpoint="${checkpointId}",service="reward-labeller"} 1`,
          );
        },
        // A new group reads the topic from its beginning first: allow for a long local history.
        { timeoutMs: 120_000, what: 'the labeller to count the turn' },
      );
    } finally {
      await publisher.disconnect();
      await labeller.stop();
    }
  }, 150_000);
});
