import { DLQ_HEADER, headersToStrings } from '@echoloop/platform';
import type { KafkaMessage } from 'kafkajs';
import type { ParkedLetter } from './dead-letters.repository';

const DLQ_HEADERS = new Set<string>(Object.values(DLQ_HEADER));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// eslint-disable-next-line no-control-regex -- PostgreSQL's text and jsonb cannot hold NUL
const NUL = /\u0000/g;
const storable = (text: string) => text.replace(NUL, '\uFFFD');

/** A message found on a dead-letter topic, as the dead_letters table keeps it: the reason out of its headers. */
export function parkedLetter(topic: string, partition: number, message: KafkaMessage): ParkedLetter {
  const all = Object.fromEntries(
    Object.entries(headersToStrings(message.headers)).map(([name, text]) => [storable(name), storable(text)]),
  );
  const reason = (name: string) => all[name] ?? '';
  const value = message.value ?? Buffer.alloc(0);
  const failedAt = new Date(reason(DLQ_HEADER.failedAt));
  return {
    topic,
    partition,
    offset: message.offset,
    originalTopic: reason(DLQ_HEADER.originalTopic) || topic.replace(/\.dlq$/, ''),
    messageKey: message.key ? storable(message.key.toString('utf8')) : null,
    value,
    headers: Object.fromEntries(Object.entries(all).filter(([name]) => !DLQ_HEADERS.has(name))),
    kind: reason(DLQ_HEADER.errorKind) || 'failed',
    error: reason(DLQ_HEADER.errorMessage),
    consumerGroup: reason(DLQ_HEADER.consumerGroup),
    attempts: Number.parseInt(reason(DLQ_HEADER.attempts), 10) || 0,
    failedAt: Number.isNaN(failedAt.getTime()) ? new Date(Number(message.timestamp)) : failedAt,
    userId: userOf(value),
  };
}

/** Every contract names its user as `payload.userId`; a message that is not such JSON names nobody. */
export function userOf(value: Buffer): string | null {
  try {
    const parsed = JSON.parse(value.toString('utf8')) as { payload?: { userId?: unknown } } | null;
    const userId = parsed?.payload?.userId;
    return typeof userId === 'string' && UUID.test(userId) ? userId : null;
  } catch {
    return null;
  }
}
