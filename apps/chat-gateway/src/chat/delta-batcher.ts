export interface DeltaBatcherOptions {
  /** Flush at most this long after the first unflushed character. */
  flushMs: number;
  /** Flush at once when this many characters are waiting. */
  flushChars: number;
}

/**
 * Coalesces token deltas into small batches by time and size, so a client gets a few messages per second
 * instead of one per token. The first text goes out at once: time to first token is what users feel.
 */
export class DeltaBatcher {
  private buffer = '';
  private timer?: NodeJS.Timeout;
  private index = 0;

  constructor(
    private readonly options: DeltaBatcherOptions,
    private readonly emit: (index: number, delta: string) => void,
  ) {}

  push(text: string): void {
    if (!text) return;
    this.buffer += text;
    if (this.index === 0 || this.buffer.length >= this.options.flushChars) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.options.flushMs);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.buffer) return;
    const delta = this.buffer;
    this.buffer = '';
    this.emit(this.index++, delta);
  }
}
