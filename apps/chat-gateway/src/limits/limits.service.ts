import { MessageEntity } from '@echoloop/persistence';
import { RetryAfterException } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import type { GateRefusal, TurnGate } from '../chat/turn.repository';
import { TtlCache } from '../common/ttl-cache';

/**
 * Per-user limits on starting turns: concurrent streams, a rate limit and a daily quota. Each is a 429. Streams
 * and the rate hold across every gateway process: they are taken in the turn's statement (`gate`, StreamSlots);
 * this process checks its own streams first, and the quota from a count cached per minute.
 */
@Injectable()
export class LimitsService {
  /** Today's count per user, read from the database once a minute and counted locally in between. */
  private readonly sentToday = new TtlCache<string, { count: number }>(60_000);

  constructor(
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /** Synchronous, so a caller can check and take a stream slot with no await in between. */
  checkStreams(streamsActive: number): void {
    if (streamsActive >= this.env.MAX_CONCURRENT_STREAMS) throw this.tooManyStreams(1);
  }

  /** What the turn's statement takes from the user's shared limits: a stream slot and a rate-limit token. */
  gate(slotId: string): TurnGate {
    return {
      slotId,
      slotTtlMs: this.env.STREAM_SLOT_TTL_MS,
      maxStreams: this.env.MAX_CONCURRENT_STREAMS,
      ratePerMinute: this.env.RATE_LIMIT_PER_MINUTE,
    };
  }

  /** The 429 for a turn the shared gate refused. */
  refusal({ refused, retryAfterSeconds }: GateRefusal): RetryAfterException {
    return refused === 'too_many_streams'
      ? this.tooManyStreams(retryAfterSeconds)
      : new RetryAfterException(429, 'rate_limited', 'You are sending messages too fast', retryAfterSeconds);
  }

  private tooManyStreams(retryAfterSeconds: number): RetryAfterException {
    return new RetryAfterException(
      429,
      'too_many_streams',
      `At most ${this.env.MAX_CONCURRENT_STREAMS} replies can stream at once; wait for one to finish`,
      retryAfterSeconds,
    );
  }

  /** The daily quota for a new message or regeneration (the rate limit is in the turn's statement). */
  async admit(userId: string): Promise<void> {
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
