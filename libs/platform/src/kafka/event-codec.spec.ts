import { chatTurnCompletedV1, chatTurnCompletedV1Example } from '@echoloop/contracts';
import { decodeEvent, EventDecodeError } from './event-codec';

describe('decodeEvent', () => {
  const encoded = (content: string) => {
    const event = structuredClone(chatTurnCompletedV1Example) as {
      payload: { userMessage: { content: string } };
    };
    event.payload.userMessage.content = content;
    return Buffer.from(JSON.stringify(event));
  };

  it('decodes a valid event', () => {
    expect(decodeEvent(chatTurnCompletedV1, encoded('hello')).payload.userMessage.content).toBe('hello');
  });

  it.each(['\ud800', 'a\u0000b'])(
    'refuses text PostgreSQL cannot store (%j) as poison, naming where, never the text',
    (content) => {
      const decode = () => decodeEvent(chatTurnCompletedV1, encoded(content));
      expect(decode).toThrow(EventDecodeError);
      expect(decode).toThrow(/payload\.userMessage\.content/);
    },
  );
});
