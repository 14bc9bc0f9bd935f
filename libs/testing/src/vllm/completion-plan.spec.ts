import { planCompletion } from './completion-plan';

const reply = 'One two three four';

describe('planCompletion', () => {
  it('plays the whole reply and finishes with stop at the end of the script', () => {
    expect(planCompletion(reply, 100, [])).toEqual({
      pieces: ['One', ' two', ' three', ' four'],
      completionTokens: 4,
      finish: { reason: 'stop', stopReason: null },
    });
  });

  it('cuts at max tokens with finish reason length', () => {
    expect(planCompletion(reply, 2, [])).toEqual({
      pieces: ['One', ' two'],
      completionTokens: 2,
      finish: { reason: 'length' },
    });
  });

  it('is not cut when max tokens equals the reply length', () => {
    expect(planCompletion(reply, 4, []).finish).toEqual({ reason: 'stop', stopReason: null });
  });

  it('ends at a stop string, leaves it out of the text and counts the tokens that produced it', () => {
    expect(planCompletion(reply, 100, [' thr'])).toEqual({
      pieces: ['One', ' two'],
      completionTokens: 3,
      finish: { reason: 'stop', stopReason: ' thr' },
    });
    expect(planCompletion(reply, 100, ['o th'])).toEqual({
      pieces: ['One', ' tw'],
      completionTokens: 3,
      finish: { reason: 'stop', stopReason: 'o th' },
    });
  });

  it('takes the stop string that completes first', () => {
    expect(planCompletion(reply, 100, ['four', 'two']).finish.stopReason).toBe('two');
  });

  it('ignores a stop string beyond max tokens', () => {
    expect(planCompletion(reply, 2, ['four']).finish).toEqual({ reason: 'length' });
  });

  it('still has a piece to carry the finish reason for an empty reply', () => {
    expect(planCompletion('', 10, [])).toEqual({
      pieces: [''],
      completionTokens: 0,
      finish: { reason: 'stop', stopReason: null },
    });
    expect(planCompletion('END here', 10, ['END']).pieces).toEqual(['']);
  });
});
