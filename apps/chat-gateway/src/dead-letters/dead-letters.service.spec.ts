import { chatTurnCompletedV1Example, TOPICS } from '@echoloop/contracts';
import type { DeadLetterEntity } from '@echoloop/persistence';
import { EventPublisher, HEADER, MetricsService } from '@echoloop/platform';
import { ConflictException, ServiceUnavailableException, UnprocessableEntityException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Message } from 'kafkajs';
import type { Principal } from '../auth/principal';
import { DeadLettersRepository } from './dead-letters.repository';
import { DeadLettersService, REPLAYED_FROM_HEADER } from './dead-letters.service';

const ADMIN: Principal = { userId: '7c1f2a4e-1111-4a4a-9a9a-000000000009', roles: ['admin'], kind: 'user' };
const TOPIC = TOPICS.chatTurnCompleted;
const VALID = JSON.stringify(chatTurnCompletedV1Example);

function letter(value: string, fields: Partial<DeadLetterEntity> = {}): DeadLetterEntity {
  return {
    id: '7',
    topic: `${TOPIC}.dlq`,
    partition: 2,
    offset: '41',
    originalTopic: TOPIC,
    messageKey: 'conversation-1',
    value: Buffer.from(value),
    headers: { producer: 'chat-gateway' },
    kind: 'invalid',
    error: 'event does not match',
    consumerGroup: 'reward-labeller',
    attempts: 1,
    failedAt: new Date('2026-12-05T10:00:00Z'),
    userId: null,
    status: 'parked',
    resolvedAt: null,
    resolvedBy: null,
    replayedEventId: null,
    createdAt: new Date('2026-12-05T10:00:01Z'),
    ...fields,
  };
}

/** A repository over one stored letter, resolving it as the SQL does: only from parked. */
function storeOf(stored: DeadLetterEntity) {
  return {
    get: jest.fn(async () => ({ ...stored })),
    list: jest.fn(),
    parkedByTopic: jest.fn(),
    resolve: jest.fn(async (_id: string, status: 'replayed' | 'dropped', by: string, eventId = null) => {
      if (stored.status !== 'parked') return false;
      Object.assign(stored, { status, resolvedBy: by, replayedEventId: eventId, resolvedAt: new Date() });
      return true;
    }),
    unresolve: jest.fn(async () => {
      Object.assign(stored, { status: 'parked', resolvedBy: null, replayedEventId: null, resolvedAt: null });
    }),
  };
}

async function serviceWith(
  stored: DeadLetterEntity,
  send = jest.fn(async (_t: string, _m: Message[]) => {}),
) {
  const moduleRef = await Test.createTestingModule({
    providers: [
      DeadLettersService,
      { provide: DeadLettersRepository, useValue: storeOf(stored) },
      { provide: EventPublisher, useValue: { send } },
      { provide: MetricsService, useValue: new MetricsService('test') },
    ],
  }).compile();
  return { service: moduleRef.get(DeadLettersService), send };
}

describe('DeadLettersService', () => {
  it('replays a letter that satisfies its contract now, as it was, to its topic with its key, once', async () => {
    const stored = letter(VALID, { kind: 'failed' });
    const { service, send } = await serviceWith(stored);
    const replayed = await service.replay('7', ADMIN, {});
    expect(send).toHaveBeenCalledTimes(1);
    const [topic, [message]] = send.mock.calls[0]!;
    expect(topic).toBe(TOPIC);
    expect(message).toMatchObject({
      key: 'conversation-1',
      headers: {
        producer: 'chat-gateway',
        [HEADER.eventId]: chatTurnCompletedV1Example.eventId,
        [REPLAYED_FROM_HEADER]: `${TOPIC}.dlq/2/41`,
      },
    });
    expect(String(message!.value)).toBe(VALID);
    expect(replayed).toMatchObject({
      status: 'replayed',
      replayedEventId: chatTurnCompletedV1Example.eventId,
      resolvedBy: `user:${ADMIN.userId}`,
    });
    await expect(service.replay('7', ADMIN, {})).rejects.toBeInstanceOf(ConflictException);
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('refuses a still invalid letter without a correction, and a correction that is invalid too', async () => {
    const stored = letter('{"not": "a turn"}');
    const { service, send } = await serviceWith(stored);
    await expect(service.replay('7', ADMIN, {})).rejects.toMatchObject({
      response: { error: { code: 'still_invalid' } },
    });
    await expect(service.replay('7', ADMIN, { event: { eventId: 'nope' } })).rejects.toBeInstanceOf(
      UnprocessableEntityException,
    );
    expect(send).not.toHaveBeenCalled();
    expect(stored.status).toBe('parked');
  });

  it('sends the corrected event in place of the parked message', async () => {
    const stored = letter('{"broken"');
    const { service, send } = await serviceWith(stored);
    await service.replay('7', ADMIN, { event: chatTurnCompletedV1Example as Record<string, unknown> });
    expect(JSON.parse(String(send.mock.calls[0]![1][0]!.value))).toEqual(chatTurnCompletedV1Example);
  });

  it('leaves the letter parked when Kafka does not take it, so it can be replayed later', async () => {
    const stored = letter(VALID);
    const send = jest.fn(async (_t: string, _m: Message[]): Promise<void> => {
      throw new Error('broker down');
    });
    const { service } = await serviceWith(stored, send);
    await expect(service.replay('7', ADMIN, {})).rejects.toBeInstanceOf(ServiceUnavailableException);
    expect(stored).toMatchObject({ status: 'parked', resolvedBy: null });
  });

  it('drops a parked letter once; a dropped one cannot be replayed', async () => {
    const stored = letter(VALID);
    const { service, send } = await serviceWith(stored);
    expect(await service.drop('7', ADMIN)).toMatchObject({ status: 'dropped' });
    await expect(service.drop('7', ADMIN)).rejects.toBeInstanceOf(ConflictException);
    await expect(service.replay('7', ADMIN, {})).rejects.toBeInstanceOf(ConflictException);
    expect(send).not.toHaveBeenCalled();
  });

  it('shows a letter that is not JSON as text, with no event', async () => {
    const { service } = await serviceWith(letter('not json at all'));
    expect(await service.get('7')).toMatchObject({ value: 'not json at all', event: null, eventId: null });
  });
});
