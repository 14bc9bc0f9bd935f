import { THINK_CLOSE as CLOSE, THINK_OPEN as OPEN } from '@echoloop/vocabulary';

/**
 * Splits a streamed reply into what the user sees and the hidden `<think>...</think>` reasoning, across chunk
 * boundaries (a tag may arrive split over several deltas). Text that might be the start of a tag is held back
 * until the next chunk decides.
 */
export class ThinkFilter {
  private pending = '';
  private inside = false;
  private visibleText = '';
  private reasoningText = '';

  /** Feeds a chunk; returns the newly visible text (possibly empty). */
  push(chunk: string): string {
    this.pending += chunk;
    let out = '';
    for (;;) {
      const tag = this.inside ? CLOSE : OPEN;
      const at = this.pending.indexOf(tag);
      if (at >= 0) {
        this.take(this.pending.slice(0, at), (text) => (out += text));
        this.pending = this.pending.slice(at + tag.length);
        this.inside = !this.inside;
        continue;
      }
      const keep = partialTagSuffix(this.pending, tag);
      this.take(this.pending.slice(0, this.pending.length - keep), (text) => (out += text));
      this.pending = this.pending.slice(this.pending.length - keep);
      return out;
    }
  }

  /** Ends the stream: held-back text is released (an unclosed <think> stays hidden). */
  end(): string {
    let out = '';
    this.take(this.pending, (text) => (out += text));
    this.pending = '';
    return out;
  }

  get visible(): string {
    return this.visibleText;
  }

  get reasoning(): string | null {
    const text = this.reasoningText.trim();
    return text ? text : null;
  }

  private take(text: string, emit: (text: string) => void): void {
    if (!text) return;
    if (this.inside) {
      this.reasoningText += text;
    } else {
      this.visibleText += text;
      emit(text);
    }
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (tag.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}
