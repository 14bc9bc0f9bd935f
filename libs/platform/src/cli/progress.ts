/** One progress report of a long-running command: where it stands, how fast, and how long is left. */
export interface Progress {
  done: number;
  total: number;
  elapsedMs: number;
}

/** `label: 120/400 turns (30%), 55.2/s, ETA 5 s` */
export function progressLine(label: string, unit: string, { done, total, elapsedMs }: Progress): string {
  const rate = done / Math.max(elapsedMs / 1_000, 0.001);
  const eta = rate > 0 ? Math.max(0, Math.round((total - done) / rate)) : 0;
  const pct = total ? Math.min(100, Math.round((done / total) * 100)) : 100;
  return `${label}: ${done}/${total} ${unit} (${pct}%), ${rate.toFixed(1)}/s, ETA ${eta} s`;
}

/** Writes progress lines to stderr: rewritten in place on a terminal, one per line otherwise (logs, CI). */
export function progressReporter(label: string, unit: string, now: () => number = Date.now) {
  const started = now();
  const end = process.stderr.isTTY ? '\r' : '\n';
  return {
    report(done: number, total: number): void {
      process.stderr.write(`${progressLine(label, unit, { done, total, elapsedMs: now() - started })}${end}`);
    },
    finish(): void {
      if (process.stderr.isTTY) process.stderr.write('\n');
    },
  };
}
