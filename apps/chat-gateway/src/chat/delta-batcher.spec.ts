import { DeltaBatcher } from './delta-batcher';

describe('DeltaBatcher', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('coalesces tokens that arrive within the flush window into one message', () => {
    const sent: [number, string][] = [];
    const batcher = new DeltaBatcher({ flushMs: 30, flushChars: 64 }, (i, d) => sent.push([i, d]));
    ['Hel', 'lo', ' wor', 'ld'].forEach((t) => batcher.push(t));
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(30);
    expect(sent).toEqual([[0, 'Hello world']]);
  });

  it('flushes at once when the size threshold is reached, numbering batches in order', () => {
    const sent: [number, string][] = [];
    const batcher = new DeltaBatcher({ flushMs: 1_000, flushChars: 4 }, (i, d) => sent.push([i, d]));
    batcher.push('ab');
    batcher.push('cd');
    batcher.push('e');
    batcher.flush();
    expect(sent).toEqual([
      [0, 'abcd'],
      [1, 'e'],
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
