import { implicitReward } from '@echoloop/rewards';
import { editSignals, feedbackSignals, implicitSignals, legacyRatingSignals } from './signals';

const repliedAt = new Date('2026-11-24T10:00:00Z');

describe('feedback as signals', () => {
  it('keeps thumbs and stars apart: a thumbs-up is liked, one star disliked', () => {
    const up = implicitSignals(
      feedbackSignals({ thumb: 'up', stars: null, tags: [], comment: null }),
      repliedAt,
      false,
    );
    const oneStar = implicitSignals(
      feedbackSignals({ thumb: null, stars: 1, tags: [], comment: null }),
      repliedAt,
      false,
    );
    expect(up).toMatchObject({ thumbs: 1, stars: null });
    expect(oneStar).toMatchObject({ thumbs: null, stars: 1 });
    expect(implicitReward(up)).toBe(1);
    expect(implicitReward(oneStar)).toBe(-1);
  });

  it('sets the whole current feedback, so a thumb, stars, tags or a comment taken back are cleared', () => {
    expect(feedbackSignals({ thumb: null, stars: null, tags: [], comment: '' })).toEqual({
      thumbs: null,
      stars: null,
      tags: [],
      comment: null,
    });
    expect(
      feedbackSignals({ thumb: 'down', stars: 4, tags: ['cold', 'cold', 'long'], comment: 'too long' }),
    ).toEqual({
      thumbs: -1,
      stars: 4,
      tags: ['cold', 'long'],
      comment: 'too long',
    });
  });

  it('reads v1 ratings as v1 documented them', () => {
    expect(legacyRatingSignals(-1)).toEqual({ thumbs: -1 });
    expect(legacyRatingSignals(1)).toEqual({ thumbs: 1 });
    expect(legacyRatingSignals(2)).toEqual({ stars: 2 });
    expect(legacyRatingSignals(5)).toEqual({ stars: 5 });
    expect(legacyRatingSignals(null)).toEqual({});
    expect(legacyRatingSignals(0)).toEqual({});
  });

  it('ignores stored values that are not stars', () => {
    expect(implicitSignals({ stars: 7 }, repliedAt, false).stars).toBeNull();
    expect(implicitSignals({ stars: 2.5 }, repliedAt, false).stars).toBeNull();
  });

  it('hears an edit until it is taken back', () => {
    const editedAt = '2026-11-24T10:01:00.000Z';
    const edited = editSignals({ content: 'My words.', editedAt });
    expect(edited).toEqual({ edit: { content: 'My words.', editedAt } });
    expect(implicitSignals(edited, repliedAt, false).edited).toBe(true);
    const undone = editSignals({ content: null, editedAt: null });
    expect(undone).toEqual({ edit: null });
    expect(implicitSignals({ ...edited, ...undone }, repliedAt, false).edited).toBe(false);
  });
});
