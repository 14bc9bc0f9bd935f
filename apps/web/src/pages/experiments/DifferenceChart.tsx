import type { Comparison } from './types';
import { asInterval } from '../../ui/format';

const WIDTH = 320;
const ROW = 26;
const LABEL = 96;
const PAD = 12;

/** A number in a few significant digits. */
const short = (value: number) => String(Number(value.toPrecision(3)));

/**
 * Each treatment's difference from control with its 95% CI: a dot and a horizontal interval per arm around a
 * zero line. Arms without enough users yet get a note instead of an interval.
 */
export function DifferenceChart({ title, comparisons }: { title: string; comparisons: Comparison[] }) {
  const bounds = comparisons.flatMap((c) => (c.welch ? asInterval(c.welch.ci) : []));
  const low = Math.min(0, ...bounds);
  const high = Math.max(0, ...bounds);
  const span = high - low || 1;
  const x = (value: number) => LABEL + PAD + ((value - low) / span) * (WIDTH - LABEL - 2 * PAD);
  const height = comparisons.length * ROW + 18;
  const description = comparisons
    .map((c) =>
      c.welch
        ? `${c.armId}: ${short(c.welch.difference)} (95% CI ${asInterval(c.welch.ci).map(short).join(' to ')})`
        : `${c.armId}: not enough data`,
    )
    .join('; ');

  return (
    <svg
      className="diff-chart"
      role="img"
      aria-label={`${title}, difference from control: ${description}`}
      viewBox={`0 0 ${WIDTH} ${height}`}
      width={WIDTH}
      height={height}
    >
      <line className="zero-line" x1={x(0)} x2={x(0)} y1={0} y2={height - 16} />
      <text className="axis-label" x={x(0)} y={height - 4} textAnchor="middle">
        0
      </text>
      {comparisons.map((c, i) => {
        const y = i * ROW + ROW / 2;
        return (
          <g key={c.armId} data-arm={c.armId}>
            <text className="arm-label" x={0} y={y + 4}>
              {c.armId}
            </text>
            {c.welch ? (
              <>
                <line
                  className="ci-interval"
                  x1={x(asInterval(c.welch.ci)[0])}
                  x2={x(asInterval(c.welch.ci)[1])}
                  y1={y}
                  y2={y}
                />
                <circle className="ci-point" cx={x(c.welch.difference)} cy={y} r={4} />
              </>
            ) : (
              <text className="axis-label" x={LABEL + PAD} y={y + 4}>
                not enough data
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
