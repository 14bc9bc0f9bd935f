import { Injectable } from '@nestjs/common';

/**
 * How far behind the turn stream the labeller is. Leaving is decided only when it is caught up: while turns
 * wait in Kafka, a user's next message may be among them.
 */
@Injectable()
export class ConsumerProgress {
  private readonly lag = new Map<number, number>();

  record(partition: number, messages: number): void {
    this.lag.set(partition, messages);
  }

  /** True once a batch was seen and no partition has messages left behind. */
  caughtUp(): boolean {
    return this.lag.size > 0 && [...this.lag.values()].every((messages) => messages <= 0);
  }
}
