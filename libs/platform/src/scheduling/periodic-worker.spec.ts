import { every, PeriodicWorker } from './periodic-worker';

/** A round that waits until released, counting how many started. */
function gatedRounds() {
  const releases: (() => void)[] = [];
  let started = 0;
  const round = jest.fn(async () => {
    started += 1;
    await new Promise<void>((resolve) => releases.push(resolve));
    return started;
  });
  const releaseAll = () => releases.splice(0).forEach((release) => release());
  return { round, releaseAll, started: () => started };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('PeriodicWorker', () => {
  afterEach(() => jest.useRealTimers());

  it('runs one round at a time: a wake during a round joins it', async () => {
    const { round, releaseAll } = gatedRounds();
    const worker = new PeriodicWorker(round, { warn: jest.fn() }, { what: 'sweep', everyMs: 60_000 });
    const first = worker.wake();
    const second = worker.wake();
    releaseAll();
    await expect(first).resolves.toBe(1);
    await expect(second).resolves.toBe(1);
    expect(round).toHaveBeenCalledTimes(1);
  });

  it('with rerunOnWake, wakes during a round run exactly one more after it', async () => {
    const { round, releaseAll, started } = gatedRounds();
    const worker = new PeriodicWorker(
      round,
      { warn: jest.fn() },
      { what: 'sweep', everyMs: 60_000, rerunOnWake: true },
    );
    void worker.wake();
    void worker.wake();
    void worker.wake();
    releaseAll();
    await flush();
    expect(started()).toBe(2);
    releaseAll();
    await worker.stop();
    expect(round).toHaveBeenCalledTimes(2);
  });

  it('logs a failed round, answers undefined, and the next round runs', async () => {
    const warn = jest.fn();
    const round = jest.fn().mockRejectedValueOnce(new Error('database down')).mockResolvedValueOnce(7);
    const worker = new PeriodicWorker(round, { warn }, { what: 'retention sweep', everyMs: 60_000 });
    await expect(worker.wake()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      { err: expect.any(Error) },
      'retention sweep failed; the next one retries',
    );
    await expect(worker.wake()).resolves.toBe(7);
  });

  it('starts a round every period, the first at start unless told otherwise', async () => {
    jest.useFakeTimers();
    const round = jest.fn(async () => undefined);
    const worker = new PeriodicWorker(round, { warn: jest.fn() }, { what: 'sweep', everyMs: 1_000 });
    worker.start({ now: false });
    expect(round).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(3_000);
    expect(round).toHaveBeenCalledTimes(3);
    await worker.stop();
    worker.start();
    expect(round).toHaveBeenCalledTimes(4);
    await worker.stop();
  });

  it('stop waits for the running round, and no round starts after it', async () => {
    jest.useFakeTimers();
    const { round, releaseAll } = gatedRounds();
    const worker = new PeriodicWorker(round, { warn: jest.fn() }, { what: 'sweep', everyMs: 1_000 });
    worker.start();
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    releaseAll();
    await stopping;
    await jest.advanceTimersByTimeAsync(5_000);
    await expect(worker.wake()).resolves.toBeUndefined();
    expect(round).toHaveBeenCalledTimes(1);
  });
});

describe('every', () => {
  it('beats until stopped, a failed beat dropped', async () => {
    jest.useFakeTimers();
    const beat = jest.fn().mockRejectedValueOnce(new Error('lost')).mockResolvedValue(undefined);
    const stop = every(100, beat);
    await jest.advanceTimersByTimeAsync(350);
    stop();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(beat).toHaveBeenCalledTimes(3);
    jest.useRealTimers();
  });
});
