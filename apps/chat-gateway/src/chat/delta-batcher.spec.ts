import { DeltaBatcher } from './delta-batcher';

describe('DeltaBatcher', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('sends the first text at once, then coalesces what arrives within the flush window', () => {
    const sent: [number, string][] = [];
    const batcher = new DeltaBatcher({ flushMs: 30, flushChars: 64 }, (i, d) => sent.push([i, d]));
    ['Hel', 'lo', ' wor', 'ld'].forEach((t) => batcher.push(t));
    expect(sent).toEqual([[0, 'Hel']]);
    jest.advanceTimersByTime(30);
    expect(sent).toEqual([
      [0, 'Hel'],
      [1, 'lo world'],
    ]);
  });

  it('flushes at once when the size threshold is reached, numbering batches in order', () => {
    const sent: [number, string][] = [];
    const batcher = new DeltaBatcher({ flushMs: 1_000, flushChars: 4 }, (i, d) => sent.push([i, d]));
    batcher.push('a');
    batcher.push('bc');
    batcher.push('de');
    batcher.push('f');
    batcher.flush();
    expect(sent).toEqual([
      [0, 'a'],
      [1, 'bcde'],
      [2, 'f'],
    ]);
  });

  it('sends nothing for empty input', () => {
    const sent: string[] = [];
    const batcher = new DeltaBatcher({ flushMs: 10, flushChars: 4 }, (_i, d) => sent.push(d));
    batcher.push('');
    batcher.flush();
    expect(sent).toEqual([]);
  });
});
