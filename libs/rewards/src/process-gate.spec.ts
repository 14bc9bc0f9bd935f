import { processGate } from './process-gate';

const ok = { content: 'That sounds exhausting.', reasoning: null, finishReason: 'stop' } as const;

describe('processGate', () => {
  it('passes a clean reply, with or without reasoning', () => {
    expect(processGate(ok)).toEqual({ value: 1, failures: [] });
    expect(processGate({ ...ok, reasoning: 'She is tired.' })).toEqual({ value: 1, failures: [] });
  });

  it.each([
    [{ content: '  \n' }, ['empty']],
    [{ finishReason: 'length' as const }, ['truncated']],
    [{ finishReason: 'cancelled' as const }, ['cancelled']],
    [{ content: '<think>hm</think>Hi' }, ['think_markup_in_reply']],
    [{ content: 'Hi</think>' }, ['think_markup_in_reply']],
    [{ reasoning: '' }, ['empty_think']],
    [{ reasoning: ' \n ' }, ['empty_think']],
    [{ content: '', finishReason: 'length' as const, reasoning: '' }, ['empty', 'truncated', 'empty_think']],
  ])('fails %j', (change, failures) => {
    expect(processGate({ ...ok, ...change })).toEqual({ value: 0, failures });
  });
});
