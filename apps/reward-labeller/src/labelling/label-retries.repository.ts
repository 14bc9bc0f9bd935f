import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { TurnPayload } from './turn-payload';

/** The components a retry judges again: those judged from the reply alone (the live emotion reads a sequence). */
export const RETRIED_COMPONENTS = ['empathy', 'humanlike'] as const;
export type RetriedComponent = (typeof RETRIED_COMPONENTS)[number];

/** A failed label whose next retry is due. */
export interface DueRetry {
  turnId: string;
  component: RetriedComponent;
  attempts: number;
  payload: TurnPayload;
}

export interface RetryPolicy {
  maxAttempts: number;
  baseMs: number;
}

/** Failed labels and their judge rounds: which are due again, and a retry that failed once more. */
@Injectable()
export class LabelRetriesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Oldest attempt first: the failed labels with rounds left whose backoff (base × 4^(attempts-1)) has passed. */
  async due(version: string, policy: RetryPolicy, limit: number): Promise<DueRetry[]> {
    const rows = await this.db.query<
      { turn_id: string; component: RetriedComponent; attempts: number; turn: TurnPayload }[]
    >(
      `SELECT l.turn_id, l.component, l.attempts, t.turn
         FROM reward_labels l JOIN reward_turns t ON t.turn_id = l.turn_id
        WHERE l.status = 'failed' AND l.labeller_version = $1 AND l.component = ANY($2::text[])
          AND l.attempts < $3
          AND l.attempted_at <= now() - make_interval(secs => $4 * power(4, l.attempts - 1) / 1000.0)
        ORDER BY l.attempted_at LIMIT $5`,
      [version, RETRIED_COMPONENTS, policy.maxAttempts, policy.baseMs, limit],
    );
    return rows.map((r) => ({
      turnId: r.turn_id,
      component: r.component,
      attempts: r.attempts,
      payload: r.turn,
    }));
  }

  /** A retry that failed again: one more round counted, with its error; nothing when the label changed since. */
  async failedAgain(turnId: string, component: string, version: string, attempts: number, error: string) {
    await this.db.query(
      `UPDATE reward_labels SET attempts = attempts + 1, attempted_at = now(), error = $5
        WHERE turn_id = $1 AND component = $2 AND labeller_version = $3 AND status = 'failed' AND attempts = $4`,
      [turnId, component, version, attempts, error],
    );
  }

  /** A retry that labelled: the round counted (the label itself was replaced through the feedback path). */
  async succeeded(turnId: string, component: string, version: string) {
    await this.db.query(
      `UPDATE reward_labels SET attempts = attempts + 1, attempted_at = now()
        WHERE turn_id = $1 AND component = $2 AND labeller_version = $3`,
      [turnId, component, version],
    );
  }
}
