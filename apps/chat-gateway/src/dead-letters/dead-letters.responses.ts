import { DEAD_LETTER_STATUSES } from '@echoloop/persistence';
import { z } from 'zod';

export const deadLetterSummary = z.object({
  id: z.string(),
  topic: z.string().describe('The topic the message was meant for'),
  deadLetterTopic: z.string(),
  partition: z.number().int(),
  offset: z.string(),
  key: z.string().nullable(),
  eventId: z.string().nullable().describe("The parked event's id, from its headers; null when it has none"),
  kind: z.string().describe('invalid: never matched its contract; failed: its handler kept failing'),
  error: z.string(),
  consumerGroup: z.string(),
  attempts: z.number().int(),
  failedAt: z.iso.datetime(),
  status: z.enum(DEAD_LETTER_STATUSES),
  resolvedAt: z.iso.datetime().nullable(),
  resolvedBy: z.string().nullable(),
  replayedEventId: z.string().nullable().describe('The id of the event sent back to its topic'),
});

export const deadLetterDetail = deadLetterSummary.extend({
  value: z.string().describe('The parked message as UTF-8 text'),
  event: z.unknown().nullable().describe('The message parsed as JSON; null when it is not JSON'),
  headers: z.record(z.string(), z.string()).describe('Its own headers, without the dead-letter ones'),
});

export const deadLetterPage = z.object({
  items: z.array(deadLetterSummary),
  nextBefore: z
    .string()
    .nullable()
    .describe('Pass as `before` for the next (older) page; null on the last one'),
});

export const deadLetterTopics = z.object({
  items: z.array(z.object({ topic: z.string(), parked: z.number().int() })),
});

export type DeadLetterSummary = z.infer<typeof deadLetterSummary>;
export type DeadLetterDetail = z.infer<typeof deadLetterDetail>;
