import type { TurnSink } from './turn-sink';

type Delta = Parameters<TurnSink['delta']>[0];

/**
 * Where a reply streams before its user message is committed: deltas wait here, and reach the client only once
 * `open` is called (never, if the write fails and the request is cancelled).
 */
export class GatedSink implements TurnSink {
  private held: Delta[] = [];
  private target: TurnSink | undefined;

  delta(event: Delta): void {
    if (this.target) this.target.delta(event);
    else this.held.push(event);
  }

  /** Only deltas stream through here; the turn itself says done or failed. */
  done(): void {}
  error(): void {}

  open(target: TurnSink): void {
    this.target = target;
    for (const event of this.held) target.delta(event);
    this.held = [];
  }
}
