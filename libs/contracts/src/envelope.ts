import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/** Metadata carried by every event on every topic. */
export const envelopeSchema = z.object({
  eventId: z.uuid(),
  schemaVersion: z.number().int().positive(),
  occurredAt: z.iso.datetime({ offset: true }),
  producer: z.string().min(1),
});

export type Envelope = z.infer<typeof envelopeSchema>;

/**
 * A versioned event contract: one topic, one payload schema. A breaking change is a new contract on a new topic
 * (`...v2`); compatible additions stay on the same version.
 */
export interface Contract<P extends z.ZodType = z.ZodType> {
  readonly topic: string;
  readonly schemaVersion: number;
  readonly schema: ReturnType<typeof eventSchema<P>>;
}

function eventSchema<P extends z.ZodType>(schemaVersion: number, payload: P) {
  return envelopeSchema.extend({
    schemaVersion: z
      .number()
      .int()
      .refine((v) => v === schemaVersion, { message: `expected schema version ${schemaVersion}` }),
    payload,
  });
}

export type EventOf<C extends Contract> = z.infer<C['schema']>;
export type PayloadOf<C extends Contract> = EventOf<C>['payload'];

export function defineContract<P extends z.ZodType>(
  topic: string,
  schemaVersion: number,
  payload: P,
): Contract<P> {
  const version = /\.v(\d+)$/.exec(topic)?.[1];
  if (Number(version) !== schemaVersion) {
    throw new Error(`Topic ${topic} must end in .v${schemaVersion}`);
  }
  return {
    topic,
    schemaVersion,
    schema: eventSchema(schemaVersion, payload),
  };
}

/** Builds a validated event; throws a ZodError naming the offending fields. */
export function createEvent<C extends Contract>(
  contract: C,
  payload: PayloadOf<C>,
  producer: string,
  occurredAt: Date = new Date(),
): EventOf<C> {
  return contract.schema.parse({
    eventId: randomUUID(),
    schemaVersion: contract.schemaVersion,
    occurredAt: occurredAt.toISOString(),
    producer,
    payload,
  }) as EventOf<C>;
}
