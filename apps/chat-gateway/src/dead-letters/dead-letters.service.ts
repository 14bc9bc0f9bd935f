import { contractOfTopic } from '@echoloop/contracts';
import type { DeadLetterEntity } from '@echoloop/persistence';
import { decodeEvent, EventDecodeError, EventPublisher, HEADER, MetricsService } from '@echoloop/platform';
import {
  ConflictException,
  Injectable,
  NotFoundException,
  ServiceUnavailableException,
  UnprocessableEntityException,
} from '@nestjs/common';
import type { Message } from 'kafkajs';
import type { Counter } from 'prom-client';
import type { Principal } from '../auth/principal';
import type { DeadLetterDetail, DeadLetterSummary } from './dead-letters.responses';
import type { DeadLettersQuery, ReplayBody } from './dead-letters.schemas';
import { DeadLettersRepository } from './dead-letters.repository';

/** The header a replayed message carries: which dead letter it came from (`<dlq topic>/<partition>/<offset>`). */
export const REPLAYED_FROM_HEADER = 'dlq-replayed-from';

const notFound = () =>
  new NotFoundException({ error: { code: 'not_found', message: 'Dead letter not found' } });

/**
 * What operators do with parked messages: list and inspect them, send one back to its topic (as it was, or a
 * corrected event) or drop it. Each letter is resolved once; consumers are idempotent by event id, so a replayed
 * event that had partly been handled before counts once.
 */
@Injectable()
export class DeadLettersService {
  private readonly resolved: Counter<'topic' | 'action'>;

  constructor(
    private readonly letters: DeadLettersRepository,
    private readonly publisher: EventPublisher,
    metrics: MetricsService,
  ) {
    this.resolved = metrics.counter(
      'dead_letters_resolved_total',
      'Dead letters replayed or dropped by an operator, by the topic they were meant for',
      ['topic', 'action'],
    );
  }

  async list(query: DeadLettersQuery): Promise<{ items: DeadLetterSummary[]; nextBefore: string | null }> {
    const rows = await this.letters.list({ ...query, limit: query.limit + 1 });
    const items = rows.slice(0, query.limit).map(summaryOf);
    return { items, nextBefore: rows.length > query.limit ? (items.at(-1)?.id ?? null) : null };
  }

  async topics(): Promise<{ items: { topic: string; parked: number }[] }> {
    return { items: await this.letters.parkedByTopic() };
  }

  async get(id: string): Promise<DeadLetterDetail> {
    return detailOf(await this.parked(id, false));
  }

  /** Sends the letter back to the topic it was meant for, with its key, so it keeps its order with its peers. */
  async replay(id: string, principal: Principal, { event }: ReplayBody): Promise<DeadLetterDetail> {
    const letter = await this.parked(id, true);
    const message = replayMessage(letter, event);
    const eventId = message.headers?.[HEADER.eventId];
    const by = resolverOf(principal);
    if (!(await this.letters.resolve(id, 'replayed', by, typeof eventId === 'string' ? eventId : null))) {
      throw alreadyResolved();
    }
    try {
      await this.publisher.send(letter.originalTopic, [message]);
    } catch {
      await this.letters.unresolve(id);
      throw new ServiceUnavailableException({
        error: { code: 'kafka_unavailable', message: 'Kafka did not take the message; try again' },
      });
    }
    this.resolved.inc({ topic: letter.originalTopic, action: 'replayed' });
    return this.get(id);
  }

  async drop(id: string, principal: Principal): Promise<DeadLetterDetail> {
    const letter = await this.parked(id, true);
    if (!(await this.letters.resolve(id, 'dropped', resolverOf(principal)))) throw alreadyResolved();
    this.resolved.inc({ topic: letter.originalTopic, action: 'dropped' });
    return this.get(id);
  }

  private async parked(id: string, mustBeParked: boolean): Promise<DeadLetterEntity> {
    const letter = await this.letters.get(id);
    if (!letter) throw notFound();
    if (mustBeParked && letter.status !== 'parked') throw alreadyResolved(letter.status);
    return letter;
  }
}

const alreadyResolved = (status = 'resolved') =>
  new ConflictException({
    error: { code: 'already_resolved', message: `This dead letter was ${status} already` },
  });

const resolverOf = (principal: Principal) => `${principal.kind}:${principal.userId}`;

/**
 * The message to send again: the parked one as it was when it satisfies its contract now (the bug behind it was
 * fixed elsewhere), else the corrected event, which must satisfy it.
 */
function replayMessage(letter: DeadLetterEntity, corrected: Record<string, unknown> | undefined): Message {
  const contract = contractOfTopic(letter.originalTopic);
  if (!contract) {
    throw new UnprocessableEntityException({
      error: { code: 'unknown_topic', message: `No contract is published on ${letter.originalTopic}` },
    });
  }
  const value = corrected === undefined ? letter.value : Buffer.from(JSON.stringify(corrected));
  let valid: { eventId: string };
  try {
    valid = decodeEvent(contract, value);
  } catch (error) {
    if (!(error instanceof EventDecodeError)) throw error;
    throw new UnprocessableEntityException({
      error: {
        code: corrected === undefined ? 'still_invalid' : 'invalid_event',
        message:
          corrected === undefined
            ? `The parked message still does not satisfy its contract (${error.message}); replay it with a corrected event`
            : `The corrected event does not satisfy its contract: ${error.message}`,
      },
    });
  }
  const from = `${letter.topic}/${letter.partition}/${letter.offset}`;
  return {
    key: letter.messageKey,
    value,
    headers: { ...letter.headers, [HEADER.eventId]: valid.eventId, [REPLAYED_FROM_HEADER]: from },
  };
}

function summaryOf(letter: DeadLetterEntity): DeadLetterSummary {
  return {
    id: letter.id,
    topic: letter.originalTopic,
    deadLetterTopic: letter.topic,
    partition: letter.partition,
    offset: letter.offset,
    key: letter.messageKey,
    eventId: letter.headers[HEADER.eventId] ?? null,
    kind: letter.kind,
    error: letter.error,
    consumerGroup: letter.consumerGroup,
    attempts: letter.attempts,
    failedAt: letter.failedAt.toISOString(),
    status: letter.status,
    resolvedAt: letter.resolvedAt?.toISOString() ?? null,
    resolvedBy: letter.resolvedBy,
    replayedEventId: letter.replayedEventId,
  };
}

function detailOf(letter: DeadLetterEntity): DeadLetterDetail {
  const value = letter.value.toString('utf8');
  let event: unknown = null;
  try {
    event = JSON.parse(value);
  } catch {
    event = null;
  }
  return { ...summaryOf(letter), value, event, headers: letter.headers };
}
