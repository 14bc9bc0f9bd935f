import { firstCompletedStop } from './stop-strings';

/**
 * Cuts a streamed reply at the first stop string, for a server that did not honour `stop`. Text that could be
 * the start of a stop string is held back until the next chunk decides, so a partial "\nAlex:" never goes out;
 * once a stop string completes, nothing more does.
 */
export class StopTrimmer {
  private pending = '';
  private hit = false;

  constructor(private readonly stops: readonly string[]) {}

  /** Feeds a chunk; returns the text that may go out now (possibly empty). */
  push(chunk: string): string {
    if (this.hit) return '';
    this.pending += chunk;
    const match = firstCompletedStop(this.pending, this.stops);
    if (match) {
      const out = this.pending.slice(0, match.start);
      this.pending = '';
      this.hit = true;
      return out;
    }
    const keep = this.partialStopSuffix();
    const out = this.pending.slice(0, this.pending.length - keep);
    this.pending = this.pending.slice(this.pending.length - keep);
    return out;
  }

  /** Ends the stream: the held-back text was not a stop string after all. */
  end(): string {
    const out = this.pending;
    this.pending = '';
    return out;
  }

  /** A stop string was found: the rest of the reply is the model speaking out of turn. */
  get stopped(): boolean {
    return this.hit;
  }

  /** Length of the longest suffix of what is pending that is a proper prefix of a stop string. */
  private partialStopSuffix(): number {
    let longest = 0;
    for (const stop of this.stops) {
      for (let n = Math.min(stop.length - 1, this.pending.length); n > longest; n--) {
        if (stop.startsWith(this.pending.slice(this.pending.length - n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }
}
