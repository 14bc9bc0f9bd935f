import { MetricsService } from '@echoloop/platform';
import { SideWorkQueue } from './side-work-queue';

/** A job that runs until released. */
function held() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const job = jest.fn(() => done);
  return { job, release };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

async function metric(metrics: MetricsService, name: string, labels: Record<string, string>) {
  const values = (await metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

describe('SideWorkQueue', () => {
  it('runs at most `concurrency` jobs at once, queues up to `queueSize`, drops and counts the rest', async () => {
    const metrics = new MetricsService('test');
    const queue = new SideWorkQueue('director', { concurrency: 2, queueSize: 1 }, metrics);
    const jobs = Array.from({ length: 5 }, held);

    expect(jobs.map(({ job }) => queue.offer(job))).toEqual([true, true, true, false, false]);
    await settle();

    expect(jobs.map(({ job }) => job.mock.calls.length)).toEqual([1, 1, 0, 0, 0]);
    expect([queue.running, queue.queued]).toEqual([2, 1]);
    expect(await metric(metrics, 'side_work_dropped_total', { work: 'director' })).toBe(2);
    expect(await metric(metrics, 'side_work_jobs', { work: 'director', state: 'queued' })).toBe(1);

    jobs[0]!.release();
    await settle();
    expect(jobs[2]!.job).toHaveBeenCalledTimes(1); // the queued one takes the free slot
    expect([queue.running, queue.queued]).toEqual([2, 0]);
    expect(queue.offer(held().job)).toBe(true); // room in the queue again

    metrics.onModuleDestroy();
  });

  it('frees the slot of a job that fails', async () => {
    const metrics = new MetricsService('test');
    const queue = new SideWorkQueue('deep_extraction', { concurrency: 1, queueSize: 0 }, metrics);
    expect(queue.offer(() => Promise.reject(new Error('model down')))).toBe(true);
    expect(queue.offer(async () => undefined)).toBe(false);
    await settle();
    expect(queue.running).toBe(0);
    expect(queue.offer(async () => undefined)).toBe(true);
    metrics.onModuleDestroy();
  });

  it('on close, drops (and counts) what waits and accepts nothing more', async () => {
    const metrics = new MetricsService('test');
    const queue = new SideWorkQueue('director', { concurrency: 1, queueSize: 5 }, metrics);
    const [running, waiting] = [held(), held()];
    queue.offer(running.job);
    queue.offer(waiting.job);
    await settle();
    queue.close();
    expect(queue.offer(held().job)).toBe(false);
    running.release();
    await settle();
    expect(waiting.job).not.toHaveBeenCalled();
    expect(await metric(metrics, 'side_work_dropped_total', { work: 'director' })).toBe(2);
    metrics.onModuleDestroy();
  });
});
