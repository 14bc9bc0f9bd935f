import { progressLine } from './progress';

describe('progressLine', () => {
  it('gives the share done, the rate and the time left', () => {
    expect(progressLine('export turns', 'turns', { done: 100, total: 400, elapsedMs: 2_000 })).toBe(
      'export turns: 100/400 turns (25%), 50.0/s, ETA 6 s',
    );
  });

  it('says 100% and no wait when there is nothing to do', () => {
    expect(progressLine('x', 'rows', { done: 0, total: 0, elapsedMs: 10 })).toBe(
      'x: 0/0 rows (100%), 0.0/s, ETA 0 s',
    );
  });
});
