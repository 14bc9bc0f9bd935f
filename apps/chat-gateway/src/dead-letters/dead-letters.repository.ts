import { DeadLetterEntity, type DeadLetterStatus } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';

/** A parked message as the mirror found it on its dead-letter topic. */
export type ParkedLetter = Pick<
  DeadLetterEntity,
  | 'topic'
  | 'partition'
  | 'offset'
  | 'originalTopic'
  | 'messageKey'
  | 'value'
  | 'headers'
  | 'kind'
  | 'error'
  | 'consumerGroup'
  | 'attempts'
  | 'failedAt'
  | 'userId'
>;

export interface DeadLetterQuery {
  topic?: string;
  status?: DeadLetterStatus;
  /** Only letters with an id below this one (the page before ended there). */
  before?: string;
  limit: number;
}

/** The mirrored dead letters: written once each by the mirror, resolved once each by an operator. */
@Injectable()
export class DeadLettersRepository {
  constructor(@InjectRepository(DeadLetterEntity) private readonly letters: Repository<DeadLetterEntity>) {}

  /** Stores the letters not stored yet (a batch mirrored again adds nothing); returns those it added. */
  async record(letters: readonly ParkedLetter[]): Promise<ParkedLetter[]> {
    if (letters.length === 0) return [];
    const { raw } = await this.letters
      .createQueryBuilder()
      .insert()
      .values([...letters])
      .orIgnore()
      .returning(['topic', 'partition', 'offset'])
      .execute();
    const added = new Set((raw as { topic: string; partition: number; offset: string }[]).map(keyOf));
    return letters.filter((letter) => added.has(keyOf(letter)));
  }

  /** Newest first. */
  list({ topic, status, before, limit }: DeadLetterQuery): Promise<DeadLetterEntity[]> {
    const query = this.letters.createQueryBuilder('d').orderBy('d.id', 'DESC').limit(limit);
    if (topic) query.andWhere('d.original_topic = :topic', { topic });
    if (status) query.andWhere('d.status = :status', { status });
    if (before) query.andWhere('d.id < :before', { before });
    return query.getMany();
  }

  get(id: string): Promise<DeadLetterEntity | null> {
    return this.letters.findOneBy({ id });
  }

  /** How many letters each topic has parked and not resolved. */
  async parkedByTopic(): Promise<{ topic: string; parked: number }[]> {
    const rows = await this.letters
      .createQueryBuilder('d')
      .select('d.original_topic', 'topic')
      .addSelect('count(*)::int', 'parked')
      .where("d.status = 'parked'")
      .groupBy('d.original_topic')
      .orderBy('d.original_topic')
      .getRawMany<{ topic: string; parked: number }>();
    return rows;
  }

  /**
   * Marks a parked letter replayed or dropped, once: false when it was resolved already (or is gone), so two
   * operators replaying the same letter at once replay it once.
   */
  async resolve(
    id: string,
    status: Exclude<DeadLetterStatus, 'parked'>,
    by: string,
    replayedEventId: string | null = null,
  ): Promise<boolean> {
    const { affected } = await this.letters
      .createQueryBuilder()
      .update()
      .set({ status, resolvedAt: () => 'now()', resolvedBy: by, replayedEventId })
      .where("id = :id AND status = 'parked'", { id })
      .execute();
    return affected === 1;
  }

  /** Takes back a replay whose send failed, so that it can be tried again. */
  async unresolve(id: string): Promise<void> {
    await this.letters.update(
      { id },
      { status: 'parked', resolvedAt: null, resolvedBy: null, replayedEventId: null },
    );
  }
}

const keyOf = (letter: { topic: string; partition: number; offset: string }) =>
  `${letter.topic}/${letter.partition}/${letter.offset}`;
