import { COMPONENTS } from './components';
import { sampledFor } from './sampling';

const ids = Array.from({ length: 20_000 }, (_, i) => `turn-${i}`);

describe('sampledFor', () => {
  it('is deterministic', () => {
    for (const id of ids.slice(0, 200)) {
      expect(sampledFor(id, 'empathy', 0.5)).toBe(sampledFor(id, 'empathy', 0.5));
    }
  });

  it('always samples at rate 1 and never at rate 0', () => {
    expect(ids.every((id) => sampledFor(id, 'humanlike', 1))).toBe(true);
    expect(ids.some((id) => sampledFor(id, 'humanlike', 0))).toBe(false);
  });

  it('samples about the rate asked for, independently per component', () => {
    for (const component of COMPONENTS) {
      const share = ids.filter((id) => sampledFor(id, component, 0.3)).length / ids.length;
      expect(Math.abs(share - 0.3)).toBeLessThan(0.02);
    }
    const both = ids.filter(
      (id) => sampledFor(id, 'empathy', 0.3) && sampledFor(id, 'humanlike', 0.3),
    ).length;
    expect(Math.abs(both / ids.length - 0.09)).toBeLessThan(0.02);
  });

  it('keeps the sample of a lower rate inside that of a higher one', () => {
    expect(ids.filter((id) => sampledFor(id, 'implicit', 0.1) && !sampledFor(id, 'implicit', 0.3))).toEqual(
      [],
    );
  });
});
