import type { KafkaMessage, Message } from 'kafkajs';

export const DLQ_HEADER = {
  errorKind: 'dlq-error-kind',
  errorMessage: 'dlq-error-message',
  originalTopic: 'dlq-original-topic',
  originalPartition: 'dlq-original-partition',
  originalOffset: 'dlq-original-offset',
  consumerGroup: 'dlq-consumer-group',
  attempts: 'dlq-attempts',
  failedAt: 'dlq-failed-at',
} as const;

/** `invalid`: the message can never be processed (bad JSON, wrong schema). `failed`: the handler kept failing. */
export type DeadLetterKind = 'invalid' | 'failed';

export interface DeadLetterReason {
  kind: DeadLetterKind;
  error: string;
  topic: string;
  partition: number;
  groupId: string;
  attempts: number;
}

const MAX_ERROR_LENGTH = 2_000;

/** The original message, byte for byte, with why it was parked in its headers. */
export function deadLetterMessage(message: KafkaMessage, reason: DeadLetterReason): Message {
  return {
    key: message.key,
    value: message.value,
    timestamp: message.timestamp,
    headers: {
      ...message.headers,
      [DLQ_HEADER.errorKind]: reason.kind,
      [DLQ_HEADER.errorMessage]: reason.error.slice(0, MAX_ERROR_LENGTH),
      [DLQ_HEADER.originalTopic]: reason.topic,
      [DLQ_HEADER.originalPartition]: String(reason.partition),
      [DLQ_HEADER.originalOffset]: message.offset,
      [DLQ_HEADER.consumerGroup]: reason.groupId,
      [DLQ_HEADER.attempts]: String(reason.attempts),
      [DLQ_HEADER.failedAt]: new Date().toISOString(),
    },
  };
}
