import type { TurnInputs } from '../conversations/turn-inputs';
import { ConversationEntity, MessageEntity, named, PreparedStatements } from '@echoloop/persistence';
import { OUTBOX_CHANNEL } from '@echoloop/platform';
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { type GateRefusal, type GateRow, refusalOf, type TurnGate } from '../limits/turn-gate.sql';
import { COMMIT_REPLY, type CommittedReply, type ReplyCommit, type ReplyRecord } from './reply-commit.sql';
import { GATED_INPUTS, INPUTS, type InputsRow, TARGETS, toInputs, type TurnTarget } from './turn-inputs.sql';

/**
 * The turn path's database: the one statement before the model call (turn-inputs.sql.ts, with the user's limits of
 * limits/turn-gate.sql.ts), the reply's commit (reply-commit.sql.ts), swipes and edits. The two big statements run
 * prepared (parsed and planned once per connection, not per turn).
 */
@Injectable()
export class TurnRepository implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly prepared: PreparedStatements,
  ) {}

  /** The first turn does not wait for the prepared statements' connection. */
  onApplicationBootstrap(): Promise<void> {
    return this.prepared.warm();
  }

  /** The turn's inputs; null when there is no such message or conversation for this user (or, for a send, a duplicate). */
  async inputs(userId: string, target: TurnTarget, historyLimit: number): Promise<TurnInputs | null> {
    const { sql, parameters } = named(TARGETS[target.kind] + INPUTS, { ...target, userId, historyLimit });
    const [row] = await this.prepared.query<InputsRow>(sql, parameters);
    return row ? toInputs(row) : null;
  }

  /**
   * The turn's inputs with the user's shared limits taken in the same statement (a send or a regeneration): a
   * refusal when the gate said no; otherwise as `inputs`, the slot and token taken even when no row came back (the
   * caller gives them back).
   */
  async gatedInputs(
    userId: string,
    target: Extract<TurnTarget, { kind: 'send' | 'regenerate' }>,
    historyLimit: number,
    gate: TurnGate,
  ): Promise<TurnInputs | GateRefusal | null> {
    const { sql, parameters } = named(GATED_INPUTS[target.kind], {
      ...target,
      ...gate,
      userId,
      historyLimit,
    });
    const [row] = await this.prepared.query<GateRow & Partial<InputsRow>>(sql, parameters);
    if (!row) throw new Error('the turn gate returned no row');
    if (!row.granted) return refusalOf(row, gate);
    return row.conversation ? toInputs(row as InputsRow) : null;
  }

  /** The newest reply to a user message, if any. */
  latestReply(userMessageId: string): Promise<MessageEntity | null> {
    return this.db.getRepository(MessageEntity).findOne({
      where: { parentId: userMessageId, role: 'assistant' },
      order: { createdAt: 'DESC' },
    });
  }

  /** An assistant reply in one of the user's conversations, or null. */
  ownedReply(userId: string, replyId: string): Promise<MessageEntity | null> {
    return this.db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .innerJoin(ConversationEntity, 'c', 'c.id = m.conversation_id')
      .where('m.id = :replyId AND m.role = :role AND c.user_id = :userId', {
        replyId,
        role: 'assistant',
        userId,
      })
      .getOne();
  }

  /** Commits the reply with everything that goes with it (COMMIT_REPLY), in one statement. */
  async commitReply(reply: ReplyRecord, commit: ReplyCommit): Promise<CommittedReply> {
    const { event, profile } = commit;
    const { sql, parameters } = named(COMMIT_REPLY, {
      ...reply,
      userId: commit.userId,
      slotId: commit.slotId ?? '',
      eventId: event.eventId,
      topic: event.topic,
      eventKey: event.key,
      eventPayload: event.payload,
      eventHeaders: event.headers,
      createdAtPath: commit.createdAtPath,
      profile: profile ? JSON.stringify(profile.merged) : null,
      seenProfile: profile?.seen ? JSON.stringify(profile.seen) : null,
      outboxChannel: OUTBOX_CHANNEL,
    });
    const [row] = await this.prepared.query<{ created_at: Date; user_turns_since_deep: number | null }>(
      sql,
      parameters,
    );
    if (!row) throw new Error('the reply was not stored');
    const saved = Object.assign(new MessageEntity(), {
      ...reply,
      role: 'assistant',
      selected: true,
      createdAt: row.created_at,
    });
    return { saved, userTurnsSinceDeep: row.user_turns_since_deep };
  }

  /** Keeps one alternative of a user message; returns the ids of the others. */
  keepAlternative<T>(
    reply: MessageEntity,
    alongside: (tx: EntityManager, rejected: string[]) => Promise<T>,
  ): Promise<T> {
    const parentId = reply.parentId;
    return this.db.transaction(async (tx) => {
      const messages = tx.getRepository(MessageEntity);
      const siblings = await messages.findBy({ parentId: parentId ?? '', role: 'assistant' });
      await messages.update({ parentId: parentId ?? '', role: 'assistant' }, { selected: false });
      await messages.update({ id: reply.id }, { selected: true });
      return alongside(
        tx,
        siblings.filter((s) => s.id !== reply.id).map((s) => s.id),
      );
    });
  }

  /**
   * The user's text in place of a finished reply's, with `alongside` in the same transaction. The model's text is
   * kept from the first edit; writing it again takes the edit back. Null when the reply already reads so, or is not
   * finished (streaming, or failed).
   */
  editReply<T>(
    replyId: string,
    content: string,
    alongside: (tx: EntityManager, edited: MessageEntity) => Promise<T>,
  ): Promise<MessageEntity | null> {
    return this.db.transaction(async (tx) => {
      const [rows] = await tx.query<[{ id: string }[], number]>(
        `UPDATE messages
            SET original_content = NULLIF(COALESCE(original_content, content), $2),
                edited_at = CASE WHEN COALESCE(original_content, content) = $2 THEN NULL ELSE now() END,
                content = $2
          WHERE id = $1 AND role = 'assistant' AND status IN ('complete', 'cancelled') AND content <> $2
          RETURNING id`,
        [replyId, content],
      );
      if (rows.length === 0) return null;
      const edited = await tx.getRepository(MessageEntity).findOneByOrFail({ id: replyId });
      await alongside(tx, edited);
      return edited;
    });
  }
}
