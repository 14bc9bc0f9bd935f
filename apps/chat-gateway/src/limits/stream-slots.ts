import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { PinoLogger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { InFlightRegistry } from '../chat/in-flight-registry';
import { GATEWAY_ENV, type GatewayEnv } from '../env';

/**
 * The concurrent-stream slots, rate-limit tokens and daily quota every gateway process shares (`turn_gates`, taken
 * in the turn's statement): given back when a reply ends or never started, and renewed while replies stream here,
 * so the slots of a process that died expire by themselves after STREAM_SLOT_TTL_MS.
 */
@Injectable()
export class StreamSlots implements OnApplicationBootstrap, OnApplicationShutdown {
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly registry: InFlightRegistry,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly logger: PinoLogger,
  ) {}

  onApplicationBootstrap(): void {
    const every = Math.max(1_000, Math.floor(this.env.STREAM_SLOT_TTL_MS / 3));
    this.renewal = setInterval(() => void this.renew(), every);
    this.renewal.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.renewal);
  }

  /**
   * Frees a slot (a reply ended) and, for a turn that was not one after all (a resend, a refusal), its rate-limit
   * token and its turn of the daily quota.
   */
  giveBack(userId: string, { slotId, token = false }: { slotId?: string; token?: boolean }): void {
    if (!slotId && !token) return;
    void this.db
      .query(
        `UPDATE turn_gates SET slots = slots - $2::text, tokens = least($3::float8, tokens + $4::int),
                quota_used = CASE WHEN quota_day = (now() AT TIME ZONE 'UTC')::date
                                  THEN greatest(0, quota_used - $4::int) ELSE quota_used END
          WHERE user_id = $1`,
        [userId, slotId ?? '', this.env.RATE_LIMIT_PER_MINUTE, token ? 1 : 0],
      )
      .catch((error: unknown) => {
        // The slot expires by itself; the token comes back with time.
        this.logger.warn({ err: error, userId }, 'giving a stream slot back failed');
      });
  }

  /** Pushes back the expiry of the slots held by replies streaming here (a slot given back is not revived). */
  async renew(): Promise<void> {
    const held = this.registry.slots();
    if (held.length === 0) return;
    try {
      await this.db.query(
        `UPDATE turn_gates g SET slots = g.slots || (
           SELECT coalesce(jsonb_object_agg(key, extract(epoch FROM now()) * 1000 + $3::float8), '{}'::jsonb)
             FROM jsonb_object_keys(g.slots) key WHERE key = ANY($2::text[]))
          WHERE g.user_id = ANY($1::uuid[])`,
        [[...new Set(held.map((h) => h.userId))], held.map((h) => h.slotId), this.env.STREAM_SLOT_TTL_MS],
      );
    } catch (error) {
      this.logger.warn({ err: error }, 'renewing stream slots failed');
    }
  }
}
