import { randomUUID } from 'node:crypto';
import { createEvent } from '../envelope';
import { chatFeedbackV1 } from './chat-feedback.v1';

const ids = { conversationId: randomUUID(), userId: randomUUID() };

describe('chat.feedback.v1', () => {
  it('carries ratings and swipe choices', () => {
    const rating = createEvent(
      chatFeedbackV1,
      {
        kind: 'rating',
        ...ids,
        turnId: randomUUID(),
        checkpointId: 'base',
        rating: 1,
        comment: null,
        tags: ['warm'],
      },
      'test',
    );
    expect(rating.payload.kind).toBe('rating');
    const swipe = createEvent(
      chatFeedbackV1,
      {
        kind: 'swipe',
        ...ids,
        parentId: randomUUID(),
        selectedTurnId: randomUUID(),
        rejectedTurnIds: [randomUUID()],
      },
      'test',
    );
    expect(swipe.payload.kind).toBe('swipe');
  });

  it('rejects a rating out of range and an unknown kind', () => {
    const base = {
      eventId: randomUUID(),
      schemaVersion: 1,
      occurredAt: new Date().toISOString(),
      producer: 't',
    };
    const bad = {
      kind: 'rating',
      ...ids,
      turnId: randomUUID(),
      checkpointId: null,
      rating: 9,
      comment: null,
      tags: [],
    };
    expect(chatFeedbackV1.schema.safeParse({ ...base, payload: bad }).success).toBe(false);
    expect(chatFeedbackV1.schema.safeParse({ ...base, payload: { ...bad, kind: 'other' } }).success).toBe(
      false,
    );
  });
});
