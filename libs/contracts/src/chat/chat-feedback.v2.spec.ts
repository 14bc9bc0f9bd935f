import { randomUUID } from 'node:crypto';
import { createEvent } from '../envelope';
import { TOPICS } from '../topics';
import { chatFeedbackV2 } from './chat-feedback.v2';

const rating = () => ({
  kind: 'rating' as const,
  conversationId: randomUUID(),
  userId: randomUUID(),
  turnId: randomUUID(),
  checkpointId: 'base',
  comment: null,
  tags: [],
});

const event = (payload: object) => ({
  eventId: randomUUID(),
  schemaVersion: 2,
  occurredAt: new Date().toISOString(),
  producer: 'test',
  payload,
});
const parse = (payload: object) => chatFeedbackV2.schema.safeParse(event(payload));

describe('chat.feedback.v2', () => {
  it('is its own topic and schema version, so v1 consumers never see the new shape', () => {
    expect(chatFeedbackV2.topic).toBe(TOPICS.chatFeedbackV2);
    expect(chatFeedbackV2.topic).not.toBe(TOPICS.chatFeedbackV1);
    expect(createEvent(chatFeedbackV2, { ...rating(), thumb: 'up', stars: null }, 'test').schemaVersion).toBe(
      2,
    );
  });

  it('tells a thumbs-up from one star, and carries both when both are given', () => {
    expect(parse({ ...rating(), thumb: 'up', stars: null }).success).toBe(true);
    expect(parse({ ...rating(), thumb: null, stars: 1 }).success).toBe(true);
    expect(parse({ ...rating(), thumb: 'down', stars: 5 }).success).toBe(true);
  });

  it.each([
    ['a numeric thumb', { thumb: 1, stars: null }],
    ['zero stars', { thumb: null, stars: 0 }],
    ['six stars', { thumb: null, stars: 6 }],
    ['half a star', { thumb: null, stars: 2.5 }],
    ['the v1 rating field', { rating: 1 }],
  ])('refuses %s', (_name, fields) => {
    expect(parse({ ...rating(), ...fields }).success).toBe(false);
  });

  it('carries an edit as the current text, or null when the edit was taken back', () => {
    const edit = { ...rating(), kind: 'edit', comment: undefined, tags: undefined };
    expect(parse({ ...edit, content: 'Better words.', editedAt: new Date().toISOString() }).success).toBe(
      true,
    );
    expect(parse({ ...edit, content: null, editedAt: null }).success).toBe(true);
    expect(parse({ ...edit, content: '', editedAt: new Date().toISOString() }).success).toBe(false);
  });
});
