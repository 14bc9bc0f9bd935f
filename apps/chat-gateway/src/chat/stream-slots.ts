import { every } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { InFlightRegistry } from './in-flight-registry';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { TurnGatesRepository } from '../limits/turn-gates.repository';

/**
 * The concurrent-stream slots, rate-limit tokens and daily quota every gateway process shares (`turn_gates`, taken
 * in the turn's statement): given back when a reply ends or never started, and renewed while replies stream here,
 * so the slots of a process that died expire by themselves after STREAM_SLOT_TTL_MS.
 */
@Injectable()
export class StreamSlots implements OnApplicationBootstrap, OnApplicationShutdown {
  private stopRenewing = (): void => undefined;

  constructor(
    private readonly gates: TurnGatesRepository,
    private readonly registry: InFlightRegistry,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly logger: PinoLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.stopRenewing = every(Math.max(1_000, Math.floor(this.env.STREAM_SLOT_TTL_MS / 3)), () =>
      this.renew(),
    );
  }

  onApplicationShutdown(): void {
    this.stopRenewing();
  }

  /**
   * Frees a slot (a reply ended) and, for a turn that was not one after all (a resend, a refusal), its rate-limit
   * token and its turn of the daily quota.
   */
  giveBack(userId: string, { slotId, token = false }: { slotId?: string; token?: boolean }): void {
    if (!slotId && !token) return;
    void this.gates
      .giveBack(userId, slotId ?? '', token, this.env.RATE_LIMIT_PER_MINUTE)
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
      await this.gates.renew(
        [...new Set(held.map((h) => h.userId))],
        held.map((h) => h.slotId),
        this.env.STREAM_SLOT_TTL_MS,
      );
    } catch (error) {
      this.logger.warn({ err: error }, 'renewing stream slots failed');
    }
  }
}
