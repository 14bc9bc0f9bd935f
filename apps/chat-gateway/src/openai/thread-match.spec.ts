import type { BadRequestException } from '@nestjs/common';
import { clientMessageId, readClientHistory, threadKey } from './client-history';
import { matchThread, type StoredLine } from './thread-match';

const user = (id: string, content: string): StoredLine => ({
  id,
  role: 'user',
  content,
  clientMessageId: `c-${id}`,
  alternatives: [],
});
const reply = (id: string, content: string, swipes: string[] = []): StoredLine => ({
  id,
  role: 'assistant',
  content,
  clientMessageId: null,
  alternatives: [{ id, content }, ...swipes.map((s, i) => ({ id: `${id}-swipe${i}`, content: s }))],
});

describe('readClientHistory', () => {
  it('takes system messages as the prompt, joins runs of one role, and ends on the new user message', () => {
    const history = readClientHistory([
      { role: 'system', content: 'You are Mia.' },
      { role: 'assistant', content: 'Hi there!', name: 'Mia' },
      { role: 'user', content: 'hello', name: 'Sam' },
      { role: 'user', content: 'are you there?' },
      { role: 'system', content: 'Be brief.' },
      { role: 'assistant', content: 'Yes.' },
      { role: 'user', content: 'good' },
    ]);
    expect(history).toEqual({
      system: 'You are Mia.\n\nBe brief.',
      earlier: [
        { role: 'assistant', content: 'Hi there!' },
        { role: 'user', content: 'hello\n\nare you there?' },
        { role: 'assistant', content: 'Yes.' },
      ],
      message: 'good',
      speakers: { user: 'Sam', character: 'Mia' },
    });
  });

  it("refuses a history that does not end with the user's words", () => {
    const refusal = (messages: Parameters<typeof readClientHistory>[0]) => {
      try {
        readClientHistory(messages);
      } catch (error) {
        return (error as BadRequestException).getResponse();
      }
      return undefined;
    };
    const body = { error: expect.objectContaining({ code: 'validation_failed' }) };
    expect(
      refusal([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'yo' },
      ]),
    ).toEqual(body);
    expect(refusal([{ role: 'system', content: 'x' }])).toEqual(body);
    expect(refusal([{ role: 'user', content: '   ' }])).toEqual(body);
  });

  it('keys a thread by its opening, so a history resent with more turns keeps its key', () => {
    const first = readClientHistory([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'hi' },
    ]);
    const later = readClientHistory([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'how are you?' },
    ]);
    const otherPrompt = readClientHistory([
      { role: 'system', content: 'T' },
      { role: 'user', content: 'hi' },
    ]);
    expect(threadKey('c1', later)).toBe(threadKey('c1', first));
    expect(threadKey('c2', first)).not.toBe(threadKey('c1', first));
    expect(threadKey('c1', otherPrompt)).not.toBe(threadKey('c1', first));
  });

  it("stores a message under its place and text, so the client's retry is the same message", () => {
    const once = readClientHistory([{ role: 'user', content: 'hi' }]);
    const again = readClientHistory([{ role: 'user', content: ' hi ' }]);
    const later = readClientHistory([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'yo' },
      { role: 'user', content: 'hi' },
    ]);
    expect(clientMessageId(again)).toBe(clientMessageId(once));
    expect(clientMessageId(later)).not.toBe(clientMessageId(once));
  });
});

describe('matchThread', () => {
  const stored = [
    user('u1', 'hi'),
    reply('a1', 'hello', ['hey you']),
    user('u2', 'how are you?'),
    reply('a2', 'fine'),
  ];
  const earlier = [
    { role: 'user' as const, content: 'hi' },
    { role: 'assistant' as const, content: 'hello' },
    { role: 'user' as const, content: 'how are you?' },
    { role: 'assistant' as const, content: 'fine' },
  ];

  it('continues a conversation whose transcript the history is', () => {
    expect(matchThread(stored, earlier, 'great')).toEqual({ kind: 'send' });
    expect(matchThread([], [], 'hi')).toEqual({ kind: 'send' });
  });

  it("is a swipe when the history is an earlier request's minus its answer", () => {
    expect(matchThread(stored, earlier.slice(0, 2), 'how are you?')).toEqual({
      kind: 'regenerate',
      replyId: 'a2',
    });
  });

  it('answers a stored message with no kept reply again, under its stored id', () => {
    expect(matchThread(stored.slice(0, 3), earlier.slice(0, 2), 'how are you?')).toEqual({
      kind: 'resend',
      clientMessageId: 'c-u2',
    });
  });

  it('keeps the swipe the client shows, and takes a last reply the client changed as its edit', () => {
    expect(matchThread(stored.slice(0, 2), earlier.slice(0, 2), 'ok')).toEqual({
      kind: 'send',
      select: 'a1',
    });
    const kept = [...stored.slice(0, 2)];
    expect(matchThread(kept, [earlier[0]!, { role: 'assistant', content: 'hey you' }], 'ok')).toEqual({
      kind: 'send',
      select: 'a1-swipe0',
    });
    expect(matchThread(kept, [earlier[0]!, { role: 'assistant', content: 'my words' }], 'ok')).toEqual({
      kind: 'send',
      edit: { replyId: 'a1', content: 'my words' },
    });
  });

  it('is another conversation when an earlier line differs or the history is shorter than a turn back', () => {
    expect(matchThread(stored, [{ role: 'user', content: 'bye' }, ...earlier.slice(1)], 'x')).toBeNull();
    expect(matchThread(stored, earlier.slice(0, 2), 'something else')).toBeNull();
    expect(matchThread(stored, [], 'hi')).toBeNull();
  });
});
