import { MessageEntity } from '@echoloop/persistence';
import { RetryAfterException } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { TtlCache } from '../common/ttl-cache';
import { TokenBuckets } from './token-bucket';

const MINUTE_MS = 60_000;

/** Per-user limits on starting turns: concurrent streams, a rate limit and a daily quota. Each is a 429. */
@Injectable()
export class LimitsService {
  private readonly rate: TokenBuckets;
  /** Today's count per user, read from the database once a minute and counted locally in between. */
  private readonly sentToday = new TtlCache<string, { count: number }>(60_000);

  constructor(
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    @InjectDataSource() private readonly db: DataSource,
  ) {
    this.rate = new TokenBuckets(env.RATE_LIMIT_PER_MINUTE, MINUTE_MS);
  }

  /** Throws RetryAfterException when the user may not start another turn now. */
  /** Synchronous, so a caller can check and take a stream slot with no await in between. */
  checkStreams(streamsActive: number): void {
    if (streamsActive >= this.env.MAX_CONCURRENT_STREAMS) {
      throw new RetryAfterException(
        429,
        'too_many_streams',
        `At most ${this.env.MAX_CONCURRENT_STREAMS} replies can stream at once; wait for one to finish`,
        1,
      );
    }
  }

  /** Rate limit and daily quota for a new message or regeneration. */
  async admit(userId: string): Promise<void> {
    const waitMs = this.rate.take(userId);
    if (waitMs > 0) {
      throw new RetryAfterException(
        429,
        'rate_limited',
        'You are sending messages too fast',
        Math.ceil(waitMs / 1_000),
      );
    }
    const today = await this.sentToday.get(`${userId}:${utcDay()}`, () => this.countSentToday(userId));
    const sentToday = today.count;
    if (sentToday >= this.env.DAILY_MESSAGE_QUOTA) {
      throw new RetryAfterException(
        429,
        'quota_exceeded',
        `The daily limit of ${this.env.DAILY_MESSAGE_QUOTA} messages is reached; it resets at midnight UTC`,
        secondsUntilUtcMidnight(),
      );
    }
    today.count++;
  }

  /** Undoes `admit` for a message that turned out to be stored already (a resend is counted once). */
  refund(userId: string): void {
    this.rate.giveBack(userId);
    void this.sentToday.peek(`${userId}:${utcDay()}`)?.then((today) => {
      if (today.count > 0) today.count--;
    });
  }

  private async countSentToday(userId: string): Promise<{ count: number }> {
    const count = await this.db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .innerJoin('conversations', 'c', 'c.id = m.conversation_id')
      .where(
        "c.user_id = :userId AND m.role = 'user' AND m.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'",
        { userId },
      )
      .getCount();
    return { count };
  }
}

const utcDay = (now = new Date()): string => now.toISOString().slice(0, 10);

function secondsUntilUtcMidnight(now = new Date()): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1_000));
}
