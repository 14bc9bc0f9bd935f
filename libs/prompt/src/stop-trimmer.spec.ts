import fc from 'fast-check';
import { cutAtFirstStop } from './stop-strings';
import { StopTrimmer } from './stop-trimmer';

function run(chunks: readonly string[], stops: readonly string[]): { parts: string[]; stopped: boolean } {
  const trimmer = new StopTrimmer(stops);
  const parts = chunks.map((chunk) => trimmer.push(chunk));
  parts.push(trimmer.end());
  return { parts, stopped: trimmer.stopped };
}

describe('StopTrimmer', () => {
  it('never lets a partial stop string out, and cuts at the whole one', () => {
    const { parts, stopped } = run(['Of course.', '\nAl', 'ex', ': I am the user now'], ['\nAlex:']);
    expect(parts).toEqual(['Of course.', '', '', '', '']);
    expect(stopped).toBe(true);
  });

  it('releases held-back text that turned out not to be a stop string', () => {
    const { parts, stopped } = run(['Hi\nAl', 'right then'], ['\nAlex:']);
    expect(parts).toEqual(['Hi', '\nAlright then', '']);
    expect(stopped).toBe(false);
  });

  it('property: the output never contains a stop string and is the input cut at the first one', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '\n', ':', 'Y', 'o', 'u') });
    fc.assert(
      fc.property(
        fc.array(text, { maxLength: 12 }),
        fc.array(
          text.filter((stop) => stop.length > 0),
          { minLength: 1, maxLength: 4 },
        ),
        (chunks, stops) => {
          const output = run(chunks, stops).parts.join('');
          expect(output).toBe(cutAtFirstStop(chunks.join(''), stops));
          for (const stop of stops) expect(output.includes(stop)).toBe(false);
        },
      ),
      { seed: 12, numRuns: 2_000 },
    );
  });
});
