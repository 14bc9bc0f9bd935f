import { fmt } from '../../ui/format';

const WIDTH = 320;
const HEIGHT = 140;
const PAD = 28;

/** The training loss per step as a line, with its first and last values in the description. */
export function LossChart({ points }: { points: { step: number; loss: number }[] }) {
  const steps = points.map((p) => p.step);
  const losses = points.map((p) => p.loss);
  const [minStep, maxStep] = [Math.min(...steps), Math.max(...steps)];
  const [low, high] = [Math.min(...losses), Math.max(...losses)];
  const x = (step: number) => PAD + ((step - minStep) / (maxStep - minStep || 1)) * (WIDTH - 2 * PAD);
  const y = (loss: number) => HEIGHT - PAD + -((loss - low) / (high - low || 1)) * (HEIGHT - 2 * PAD);
  const first = points[0];
  const last = points.at(-1);
  return (
    <svg
      className="rl-loss-chart"
      role="img"
      aria-label={`Training loss over ${points.length} steps: ${fmt(first?.loss)} at step ${first?.step ?? ''}, ${fmt(last?.loss)} at step ${last?.step ?? ''}`}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width={WIDTH}
      height={HEIGHT}
    >
      <line className="rl-axis" x1={PAD} x2={WIDTH - PAD} y1={HEIGHT - PAD} y2={HEIGHT - PAD} />
      <line className="rl-axis" x1={PAD} x2={PAD} y1={PAD} y2={HEIGHT - PAD} />
      <polyline className="rl-loss-line" points={points.map((p) => `${x(p.step)},${y(p.loss)}`).join(' ')} />
      <text x={PAD} y={HEIGHT - 8} textAnchor="middle">
        {minStep}
      </text>
      <text x={WIDTH - PAD} y={HEIGHT - 8} textAnchor="middle">
        {maxStep}
      </text>
      <text x={PAD - 4} y={PAD + 4} textAnchor="end">
        {fmt(high)}
      </text>
      <text x={PAD - 4} y={HEIGHT - PAD} textAnchor="end">
        {fmt(low)}
      </text>
      <text x={WIDTH / 2} y={14} textAnchor="middle">
        loss by step
      </text>
    </svg>
  );
}
