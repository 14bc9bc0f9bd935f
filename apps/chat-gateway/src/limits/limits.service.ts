import type { GateRefusal, TurnGate } from './turn-gate.sql';
import { RetryAfterException } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_ENV, type GatewayEnv } from '../env';

/**
 * Per-user limits on starting turns: concurrent streams, a rate limit and a daily quota, each a 429. All three hold
 * across every gateway process: they are taken in the turn's statement (`gate`, given back by StreamSlots); this
 * process checks its own streams first.
 */
@Injectable()
export class LimitsService {
  constructor(@Inject(GATEWAY_ENV) private readonly env: GatewayEnv) {}

  /** Synchronous, so a caller can check and take a stream slot with no await in between. */
  checkStreams(streamsActive: number): void {
    if (streamsActive >= this.env.MAX_CONCURRENT_STREAMS) throw this.tooManyStreams(1);
  }

  /** What the turn's statement takes from the user's limits: a stream slot, a rate token, a turn of the quota. */
  gate(slotId: string): TurnGate {
    return {
      slotId,
      slotTtlMs: this.env.STREAM_SLOT_TTL_MS,
      maxStreams: this.env.MAX_CONCURRENT_STREAMS,
      ratePerMinute: this.env.RATE_LIMIT_PER_MINUTE,
      dailyQuota: this.env.DAILY_MESSAGE_QUOTA,
    };
  }

  /** The 429 for a turn the shared gate refused. */
  refusal({ refused, retryAfterSeconds }: GateRefusal): RetryAfterException {
    switch (refused) {
      case 'too_many_streams':
        return this.tooManyStreams(retryAfterSeconds);
      case 'rate_limited':
        return new RetryAfterException(
          429,
          'rate_limited',
          'You are sending messages too fast',
          retryAfterSeconds,
        );
      case 'quota_exceeded':
        return new RetryAfterException(
          429,
          'quota_exceeded',
          `The daily limit of ${this.env.DAILY_MESSAGE_QUOTA} messages is reached; it resets at midnight UTC`,
          retryAfterSeconds,
        );
    }
  }

  private tooManyStreams(retryAfterSeconds: number): RetryAfterException {
    return new RetryAfterException(
      429,
      'too_many_streams',
      `At most ${this.env.MAX_CONCURRENT_STREAMS} replies can stream at once; wait for one to finish`,
      retryAfterSeconds,
    );
  }
}
