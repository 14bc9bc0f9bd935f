import { makeProfile } from './fixtures.spec-helper';
import { spreadByHiddenNeed } from './sample';

describe('spreadByHiddenNeed', () => {
  const pool = [
    makeProfile({ id: 'a1', hiddenNeed: 'practical-advice' }),
    makeProfile({ id: 'a2', hiddenNeed: 'practical-advice' }),
    makeProfile({ id: 'a3', hiddenNeed: 'practical-advice' }),
    makeProfile({ id: 'b1', hiddenNeed: 'deep-empathy' }),
    makeProfile({ id: 'c1', hiddenNeed: 'listen-while-venting' }),
    makeProfile({ id: 'c2', hiddenNeed: 'listen-while-venting' }),
  ];

  it('takes one profile of each need in turn', () => {
    expect(spreadByHiddenNeed(pool, 4).map((p) => p.id)).toEqual(['a1', 'b1', 'c1', 'a2']);
  });

  it('returns every profile once when the limit is the pool', () => {
    expect(spreadByHiddenNeed(pool).map((p) => p.id)).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
    expect(spreadByHiddenNeed(pool, 50)).toHaveLength(6);
  });
});
