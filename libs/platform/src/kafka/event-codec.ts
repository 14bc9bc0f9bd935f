import type { Contract, Envelope, EventOf } from '@echoloop/contracts';
import type { IHeaders, Message } from 'kafkajs';
import { findUnstorableText } from '../http/text';

export const HEADER = {
  contentType: 'content-type',
  eventId: 'event-id',
  schemaVersion: 'schema-version',
  producer: 'producer',
} as const;

/** The envelope mirrored in message headers, so tools can route and dedupe without parsing the value. */
export function eventHeaders(event: Envelope): Record<string, string> {
  return {
    [HEADER.contentType]: 'application/json',
    [HEADER.eventId]: event.eventId,
    [HEADER.schemaVersion]: String(event.schemaVersion),
    [HEADER.producer]: event.producer,
  };
}

/** Serialises a validated event as a Kafka message: JSON value, envelope fields mirrored in headers. */
export function encodeEvent<C extends Contract>(contract: C, event: EventOf<C>, key: string): Message {
  const valid = contract.schema.parse(event);
  return { key, value: JSON.stringify(valid), headers: eventHeaders(valid) };
}

export class EventDecodeError extends Error {
  override readonly name = 'EventDecodeError';
}

/** Parses and validates a message value against its contract; throws EventDecodeError naming the problem. */
export function decodeEvent<C extends Contract>(contract: C, value: Buffer | null): EventOf<C> {
  if (value === null) throw new EventDecodeError('message has no value');
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch {
    throw new EventDecodeError('message value is not valid JSON');
  }
  const unstorable = findUnstorableText(json);
  if (unstorable.length > 0) {
    const paths = unstorable.map((issue) => `${issue.path}: ${issue.message}`);
    throw new EventDecodeError(`event holds text PostgreSQL cannot store: ${paths.join('; ')}`);
  }
  const result = contract.schema.safeParse(json);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new EventDecodeError(`event does not match ${contract.topic}: ${problems.join('; ')}`);
  }
  return result.data as EventOf<C>;
}

export function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.map(String).join(',') : String(value);
  }
  return out;
}
