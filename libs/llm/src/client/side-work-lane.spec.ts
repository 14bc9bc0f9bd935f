import { waitFor } from '@echoloop/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  PREEMPTED,
  type SideWorkAdmission,
  SideWorkLane,
  SideWorkLanes,
  sideWorkEnv,
  vllmLoad,
} from './side-work-lane';
import { z } from 'zod';

/**
 * A lane over a scripted engine load (each read takes the next value; the last one stays) and a clock that moves
 * only when the lane sleeps (a sleep still yields to other callbacks, as a timer does).
 */
function laneOver(
  loads: (number | undefined)[],
  options = { concurrency: 1, maxWaitMs: 1_000, pollMs: 100 },
) {
  let now = 0;
  const admissions: SideWorkAdmission[] = [];
  const reads: number[] = [];
  let preemptions = 0;
  const lane = new SideWorkLane(
    async () => {
      reads.push(now);
      return loads.length > 1 ? loads.shift() : loads[0];
    },
    options,
    {
      now: () => now,
      sleep: (ms) => new Promise((resolve) => setImmediate(() => ((now += ms), resolve()))),
      onAdmit: (admission) => admissions.push(admission),
      onPreempt: () => (preemptions += 1),
    },
  );
  return { lane, admissions, reads, preemptions: () => preemptions, loads };
}

/** Work that runs until released, or until aborted (then it fails as a cancelled request does). */
function heldWork() {
  const starts: AbortSignal[] = [];
  let release!: (value: string) => void;
  const work = (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      starts.push(signal);
      release = resolve;
      signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true });
    });
  return { work, starts, release: (value: string) => release(value) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SideWorkLane', () => {
  it('starts at once on an engine that serves nobody', async () => {
    const { lane, admissions } = laneOver([0]);
    await expect(lane.run(async () => 'judged')).resolves.toBe('judged');
    expect(admissions).toEqual([{ waitedMs: 0, forced: false }]);
  });

  it('waits while the engine serves others (a user’s reply), polling, and starts when it is free', async () => {
    const { lane, admissions, reads } = laneOver([1, 2, 1, 0]);
    const work = jest.fn(async (_signal: AbortSignal) => 'extracted');
    await expect(lane.run(work)).resolves.toBe('extracted');
    expect(reads).toEqual([0, 100, 200, 300]);
    expect(admissions).toEqual([{ waitedMs: 300, forced: false }]);
    expect(work).toHaveBeenCalledTimes(1);
  });

  it('goes anyway after its longest wait, so background work is never starved', async () => {
    const { lane, admissions } = laneOver([3], { concurrency: 1, maxWaitMs: 450, pollMs: 100 });
    await lane.run(async () => undefined);
    expect(admissions).toEqual([{ waitedMs: 500, forced: true }]);
  });

  it('counts as free an engine whose load cannot be read (the request meets the real problem)', async () => {
    const { lane, admissions } = laneOver([undefined]);
    await lane.run(async () => undefined);
    expect(admissions).toEqual([{ waitedMs: 0, forced: false }]);
  });

  it('does not wait for its own requests: a batch of 3 on the engine is this lane’s', async () => {
    const { lane, admissions } = laneOver([0, 3], { concurrency: 2, maxWaitMs: 1_000, pollMs: 100 });
    let finish!: () => void;
    const batch = lane.run(() => new Promise<void>((resolve) => (finish = resolve)), 3);
    await settle();
    await lane.run(async () => undefined);
    expect(admissions).toEqual([
      { waitedMs: 0, forced: false },
      { waitedMs: 0, forced: false },
    ]);
    finish();
    await batch;
  });

  it('steps aside when a reply comes while it runs, and runs again once the engine is free', async () => {
    const { lane, preemptions, loads } = laneOver([0, 0, 0]);
    const { work, starts, release } = heldWork();
    const judged = lane.run(work);
    await waitFor(() => starts.length === 1, { what: 'the first start' });
    loads.splice(0, loads.length, 2, 2, 1, 0); // a reply arrives beside the side request, then ends
    await waitFor(() => starts.length === 2, { what: 'the second start' });
    expect(starts[0]?.reason).toBe(PREEMPTED);
    expect(preemptions()).toBe(1);
    release('judged');
    await expect(judged).resolves.toBe('judged');
  });

  it('is no longer preempted once it went anyway after its longest wait', async () => {
    const { lane, admissions, preemptions } = laneOver([5], { concurrency: 1, maxWaitMs: 300, pollMs: 100 });
    const { work, starts, release } = heldWork();
    const judged = lane.run(work);
    await waitFor(() => starts.length === 1, { what: 'the forced start' });
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(preemptions()).toBe(0);
    release('judged');
    await expect(judged).resolves.toBe('judged');
    expect(admissions).toEqual([{ waitedMs: 300, forced: true }]);
  });

  it('passes on the failures of the work itself', async () => {
    const { lane } = laneOver([0]);
    await expect(lane.run(async () => Promise.reject(new Error('judge refused')))).rejects.toThrow(
      'judge refused',
    );
  });

  it('holds at most `concurrency` requests; the next waits for a slot', async () => {
    const { lane } = laneOver([0]);
    const leave = await lane.enter();
    const second = jest.fn(async () => undefined);
    const queued = lane.run(second);
    await settle();
    expect(second).not.toHaveBeenCalled();
    leave();
    await queued;
    expect(second).toHaveBeenCalledTimes(1);
  });
});

describe('SideWorkLanes', () => {
  const env = (values: Record<string, string>) => z.object(sideWorkEnv).parse(values);

  it('shares one lane per engine, and none when side work does not yield', () => {
    const lanes = new SideWorkLanes(env({}), {}, () => async () => 0);
    expect(lanes.for('http://a/v1')).toBe(lanes.for('http://a/v1'));
    expect(lanes.for('http://b/v1')).not.toBe(lanes.for('http://a/v1'));
    expect(new SideWorkLanes(env({ MODEL_SIDE_WORK_YIELDS: 'false' })).for('http://a/v1')).toBeUndefined();
  });
});

describe('vllmLoad', () => {
  let server: Server;
  let metrics = '';
  let baseUrl = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url !== '/metrics') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end(metrics);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('sums running and waiting requests from vLLM’s metrics (lines as vLLM 0.32 writes them)', async () => {
    metrics = [
      '# HELP vllm:num_requests_running Number of requests in model execution batches.',
      '# TYPE vllm:num_requests_running gauge',
      'vllm:num_requests_running{engine="0",model_name="smollm2-135m-instruct"} 2.0',
      '# TYPE vllm:num_requests_waiting gauge',
      'vllm:num_requests_waiting{engine="0",model_name="smollm2-135m-instruct"} 1.0',
      'vllm:num_requests_waiting_by_reason{engine="0",model_name="smollm2-135m-instruct",reason="capacity"} 1.0',
    ].join('\n');
    await expect(vllmLoad(baseUrl)()).resolves.toBe(3);
  });

  it('cannot tell for a server without those metrics, or none at all', async () => {
    metrics = 'process_cpu_seconds_total 1.5\n';
    await expect(vllmLoad(baseUrl)()).resolves.toBeUndefined();
    await expect(vllmLoad('http://127.0.0.1:9/v1', 200)()).resolves.toBeUndefined();
  });
});
