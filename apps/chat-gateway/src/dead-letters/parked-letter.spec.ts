import { DLQ_HEADER } from '@echoloop/platform';
import type { KafkaMessage } from 'kafkajs';
import { parkedLetter } from './parked-letter';

const USER = '7c1f2a4e-1111-4a4a-9a9a-000000000003';

const message = (value: Buffer | null, headers: KafkaMessage['headers'] = {}): KafkaMessage =>
  ({
    key: Buffer.from('k'),
    value,
    headers,
    offset: '12',
    timestamp: '1764928800000',
    attributes: 0,
  }) as KafkaMessage;

describe('parkedLetter', () => {
  it('takes the reason out of the dlq headers and keeps the message its own headers and bytes', () => {
    const value = Buffer.from(JSON.stringify({ payload: { userId: USER } }));
    const letter = parkedLetter(
      'chat.turn.completed.v1.dlq',
      1,
      message(value, {
        'event-id': 'e-1',
        [DLQ_HEADER.errorKind]: 'failed',
        [DLQ_HEADER.errorMessage]: 'judge down',
        [DLQ_HEADER.originalTopic]: 'chat.turn.completed.v1',
        [DLQ_HEADER.consumerGroup]: 'reward-labeller',
        [DLQ_HEADER.attempts]: '5',
        [DLQ_HEADER.failedAt]: '2026-12-05T10:00:00.000Z',
      }),
    );
    expect(letter).toEqual({
      topic: 'chat.turn.completed.v1.dlq',
      partition: 1,
      offset: '12',
      originalTopic: 'chat.turn.completed.v1',
      messageKey: 'k',
      value,
      headers: { 'event-id': 'e-1' },
      kind: 'failed',
      error: 'judge down',
      consumerGroup: 'reward-labeller',
      attempts: 5,
      failedAt: new Date('2026-12-05T10:00:00.000Z'),
      userId: USER,
    });
  });

  it('copes with a message put there by hand: no headers, no value, NUL characters', () => {
    const letter = parkedLetter('chat.feedback.v2.dlq', 0, message(null, { 'x\u0000': 'a\u0000b' }));
    expect(letter).toMatchObject({
      originalTopic: 'chat.feedback.v2',
      value: Buffer.alloc(0),
      headers: { 'x\uFFFD': 'a\uFFFDb' },
      kind: 'failed',
      attempts: 0,
      failedAt: new Date(1764928800000),
      userId: null,
    });
  });

  it('names no user for a value that is not an event or names no valid id', () => {
    expect(parkedLetter('t.dlq', 0, message(Buffer.from('[1]'))).userId).toBeNull();
    expect(parkedLetter('t.dlq', 0, message(Buffer.from('{"payload":{"userId":"x"}}'))).userId).toBeNull();
  });
});
