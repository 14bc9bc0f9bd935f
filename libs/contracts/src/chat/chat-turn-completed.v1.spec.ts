import { createEvent, defineContract } from '../envelope';
import { chatTurnCompletedV1 } from './chat-turn-completed.v1';
import golden from './fixtures/chat-turn-completed.v1.json';

describe('chat.turn.completed.v1', () => {
  it('accepts the golden event unchanged', () => {
    expect(chatTurnCompletedV1.schema.parse(golden)).toEqual(golden);
  });

  it('builds events with a fresh id, the contract version and a timestamp', () => {
    const event = createEvent(chatTurnCompletedV1, golden.payload as never, 'test', new Date(0));
    expect(event.eventId).not.toBe(golden.eventId);
    expect(event.schemaVersion).toBe(1);
    expect(event.occurredAt).toBe('1970-01-01T00:00:00.000Z');
  });

  it.each([
    ['a missing conversation id', { conversationId: undefined }],
    [
      'a negative token count',
      {
        assistantMessage: {
          ...golden.payload.assistantMessage,
          usage: { promptTokens: -1, completionTokens: 0 },
        },
      },
    ],
    [
      'an unknown finish reason',
      { assistantMessage: { ...golden.payload.assistantMessage, finishReason: 'boom' } },
    ],
    ['a history role the model does not know', { history: [{ role: 'tool', content: 'x' }] }],
  ])('rejects %s', (_name, patch) => {
    const result = chatTurnCompletedV1.schema.safeParse({
      ...golden,
      payload: { ...golden.payload, ...patch },
    });
    expect(result.success).toBe(false);
  });

  it('rejects an event of another schema version', () => {
    expect(chatTurnCompletedV1.schema.safeParse({ ...golden, schemaVersion: 2 }).success).toBe(false);
  });

  it('refuses a contract whose topic does not carry its version', () => {
    expect(() =>
      defineContract('chat.turn.completed.v1', 2, chatTurnCompletedV1.schema.shape.payload),
    ).toThrow(/must end in \.v2/);
  });
});
