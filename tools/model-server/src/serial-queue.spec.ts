import { QueuedJobAbortedError, SerialQueue } from './serial-queue';

describe('SerialQueue', () => {
  it('runs jobs one at a time in arrival order', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    const job = (name: string, ms: number) => async () => {
      events.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      events.push(`${name} end`);
      return name;
    };
    const signal = new AbortController().signal;
    const results = await Promise.all([queue.run(job('a', 20), signal), queue.run(job('b', 1), signal)]);
    expect(results).toEqual(['a', 'b']);
    expect(events).toEqual(['a start', 'a end', 'b start', 'b end']);
  });

  it('skips a job whose client left while it waited, and keeps going after failures', async () => {
    const queue = new SerialQueue();
    const open = new AbortController().signal;
    const left = new AbortController();
    const failing = queue.run(() => Promise.reject(new Error('boom')), open);
    const skipped = queue.run(() => Promise.resolve('ran'), left.signal);
    expect(queue.pending).toBe(2);
    left.abort();
    await expect(failing).rejects.toThrow('boom');
    await expect(skipped).rejects.toBeInstanceOf(QueuedJobAbortedError);
    await expect(queue.run(() => Promise.resolve('next'), open)).resolves.toBe('next');
    expect(queue.pending).toBe(0);
  });
});
