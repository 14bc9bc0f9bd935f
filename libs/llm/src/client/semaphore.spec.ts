import { Semaphore } from './semaphore';

describe('Semaphore', () => {
  const deferred = () => {
    let resolve!: () => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    return { promise, resolve, reject };
  };

  it('runs at most `limit` tasks at once, the rest in arrival order', async () => {
    const slots = new Semaphore(2);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) => slots.run(() => (started.push(i), gate.promise)));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gates[1]?.resolve();
    await runs[1];
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.resolve();
    gates[2]?.resolve();
    await Promise.all(runs);
  });

  it('frees the slot of a task that fails or throws before returning a promise', async () => {
    const slots = new Semaphore(1);
    await expect(slots.run(() => Promise.reject(new Error('judge down')))).rejects.toThrow('judge down');
    await expect(
      slots.run(() => {
        throw new Error('bad call');
      }),
    ).rejects.toThrow('bad call');
    await expect(slots.run(async () => 'free again')).resolves.toBe('free again');
  });
});
