/** Progress of a long command, one line each, on stderr (stdout keeps the result alone). */
export interface Progress {
  step(message: string): void;
}

export class StderrProgress implements Progress {
  private readonly started = Date.now();

  constructor(
    private readonly tag: string,
    private readonly write: (text: string) => void = (text) => process.stderr.write(text),
  ) {}

  step(message: string): void {
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    this.write(`[${this.tag} +${seconds}s] ${message}\n`);
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
