import { fmt } from '../../ui/format';

export interface EmotionPoint {
  /** 1-based position of the turn in the conversation. */
  turn: number;
  /** The live-emotion reward of the turn; null when it was not labelled. */
  value: number | null;
}

const WIDTH = 560;
const HEIGHT = 200;
const LEFT = 36;
const RIGHT = 12;
const TOP = 12;
const BOTTOM = 28;

/** "turn 1 0.2, turn 2 unlabelled, turn 3 0.5": what the chart shows, for its accessible name. */
export function describeTrajectory(points: EmotionPoint[]): string {
  const labelled = points.filter((p): p is { turn: number; value: number } => p.value !== null);
  const [first] = labelled;
  const last = labelled.at(-1);
  if (!first || !last) return `Live emotion over ${points.length} turns: none labelled`;
  const values = points.map((p) => `turn ${p.turn} ${p.value === null ? 'unlabelled' : fmt(p.value)}`);
  return (
    `Live emotion over ${points.length} turn${points.length === 1 ? '' : 's'}, from ${fmt(first.value)} ` +
    `to ${fmt(last.value)} (lowest ${fmt(Math.min(...labelled.map((p) => p.value)))}, highest ` +
    `${fmt(Math.max(...labelled.map((p) => p.value)))}): ${values.join(', ')}`
  );
}

/**
 * The live-emotion trajectory of a conversation: one point per turn on a −1…1 scale (wider if a value is outside
 * it), joined by a line; a turn without a label breaks the line.
 */
export function EmotionChart({ points }: { points: EmotionPoint[] }) {
  const values = points.flatMap((p) => (p.value === null ? [] : [p.value]));
  const low = Math.min(-1, ...values);
  const high = Math.max(1, ...values);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const x = (turn: number) =>
    LEFT + (points.length <= 1 ? plotWidth / 2 : ((turn - 1) / (points.length - 1)) * plotWidth);
  const y = (value: number) => TOP + ((high - value) / (high - low)) * plotHeight;

  // Runs of consecutive labelled turns, each drawn as one line.
  const runs: { turn: number; value: number }[][] = [];
  let run: { turn: number; value: number }[] = [];
  for (const p of points) {
    if (p.value === null) {
      if (run.length) runs.push(run);
      run = [];
    } else run.push({ turn: p.turn, value: p.value });
  }
  if (run.length) runs.push(run);
  // At most about ten turn labels on the axis.
  const every = Math.max(1, Math.ceil(points.length / 10));

  return (
    <svg
      className="emotion-chart"
      role="img"
      aria-label={describeTrajectory(points)}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width={WIDTH}
      height={HEIGHT}
    >
      {[low, 0, high].map((tick) => (
        <g key={tick}>
          <line
            className={tick === 0 ? 'zero-line' : 'grid-line'}
            x1={LEFT}
            x2={WIDTH - RIGHT}
            y1={y(tick)}
            y2={y(tick)}
          />
          <text className="axis-label" x={LEFT - 6} y={y(tick) + 4} textAnchor="end">
            {fmt(tick)}
          </text>
        </g>
      ))}
      {points
        .filter((p) => (p.turn - 1) % every === 0 || p.turn === points.length)
        .map((p) => (
          <text key={p.turn} className="axis-label" x={x(p.turn)} y={HEIGHT - 10} textAnchor="middle">
            {p.turn}
          </text>
        ))}
      <text className="axis-label" x={WIDTH - RIGHT} y={HEIGHT} textAnchor="end">
        turn
      </text>
      {runs.map((r) => (
        <polyline
          key={r[0]?.turn}
          className="trajectory"
          points={r.map((p) => `${x(p.turn)},${y(p.value)}`).join(' ')}
        />
      ))}
      {points.map((p) =>
        p.value === null ? null : (
          <circle key={p.turn} className="trajectory-point" cx={x(p.turn)} cy={y(p.value)} r={4} />
        ),
      )}
    </svg>
  );
}
