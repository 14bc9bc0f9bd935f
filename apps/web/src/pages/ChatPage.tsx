import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';
import { type AckOrError, type ChatSocket, connectChat } from '../api/chat-socket';
import { api, errorMessage } from '../api/client';
import type { paths } from '../api/gateway';
import { navigate } from '../router';
import { Avatar } from './Avatar';
import { Stars } from './Stars';
import { Swipes } from './Swipes';
import { ThumbIcon } from './ThumbIcon';

type Conversation =
  paths['/v1/conversations']['get']['responses'][200]['content']['application/json']['items'][number];
type StoredMessage =
  paths['/v1/conversations/{id}/messages']['get']['responses'][200]['content']['application/json']['items'][number];

interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  state: 'streaming' | 'complete' | 'cancelled' | 'error';
  /** The user message a reply answers: a reply's alternatives (swipes) share it. */
  parentId?: string | null;
  /** The alternative the user keeps (later turns see only it). */
  selected?: boolean;
  error?: string;
  thumb?: 'up' | 'down' | null;
  stars?: number | null;
}

/** One entry of the conversation: a message, and for a reply all the alternatives of its user message. */
interface Shown {
  message: Message;
  alternatives: Message[];
}

/** Every message but system turns, alternatives included (the view picks one of each group). */
function fromStored(stored: StoredMessage[]): Message[] {
  return stored
    .filter((m) => m.role !== 'system')
    .map((m) => ({
      id: m.id,
      role: m.role === 'user' ? 'user' : 'assistant',
      content: m.content,
      state: m.status,
      parentId: m.parentId,
      selected: m.selected,
    }));
}

/**
 * What the conversation shows: each reply's group of alternatives in the place of its first one, showing the
 * one being browsed, else the kept one, else the newest.
 */
function visibleMessages(all: Message[], browsing: ReadonlyMap<string, string>): Shown[] {
  const groups = new Map<string, Message[]>();
  for (const m of all) {
    if (m.role !== 'assistant' || !m.parentId) continue;
    const group = groups.get(m.parentId);
    if (group) group.push(m);
    else groups.set(m.parentId, [m]);
  }
  const shown: Shown[] = [];
  for (const m of all) {
    const alternatives = m.role === 'assistant' && m.parentId ? groups.get(m.parentId) : undefined;
    if (!alternatives || !m.parentId) {
      shown.push({ message: m, alternatives: [m] });
      continue;
    }
    if (alternatives[0] !== m) continue;
    const browsed = browsing.get(m.parentId);
    const pick =
      alternatives.find((a) => a.id === browsed) ??
      alternatives.find((a) => a.selected) ??
      alternatives[alternatives.length - 1] ??
      m;
    shown.push({ message: pick, alternatives });
  }
  return shown;
}

export function ChatPage({ conversationId }: { conversationId: string | undefined }) {
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [names, setNames] = useState<Map<string, string>>(new Map());
  const [messages, setMessages] = useState<Message[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  /** Per user message, the alternative being looked at (not necessarily the kept one). */
  const [browsing, setBrowsing] = useState<ReadonlyMap<string, string>>(new Map());
  const socketRef = useRef<ChatSocket | null>(null);
  const logRef = useRef<HTMLOListElement | null>(null);

  const loadConversations = useCallback(async () => {
    const { data } = await api.GET('/v1/conversations');
    if (data) setConversations(data.items);
  }, []);

  useEffect(() => {
    void loadConversations();
    void api.GET('/v1/characters').then(({ data }) => {
      if (data) setNames(new Map(data.items.map((c) => [c.id, c.name])));
    });
  }, [loadConversations]);

  useEffect(() => {
    setMessages([]);
    setBrowsing(new Map());
    setError(null);
    if (!conversationId) return;
    let cancelled = false;
    void api
      .GET('/v1/conversations/{id}/messages', {
        params: { path: { id: conversationId }, query: { limit: 100 } },
      })
      .then(({ data, error: failure }) => {
        if (cancelled) return;
        if (data) setMessages(fromStored(data.items));
        else setError(errorMessage(failure, 'Could not load this conversation'));
      });
    return () => {
      cancelled = true;
    };
  }, [conversationId]);

  useEffect(() => {
    const socket = connectChat();
    socketRef.current = socket;
    const update = (id: string, change: (m: Message) => Message) =>
      setMessages((list) => list.map((m) => (m.id === id ? change(m) : m)));
    socket.on('message:delta', (event) =>
      setMessages((list) =>
        list.some((m) => m.id === event.replyId)
          ? list.map((m) => (m.id === event.replyId ? { ...m, content: m.content + event.delta } : m))
          : [...list, { id: event.replyId, role: 'assistant', content: event.delta, state: 'streaming' }],
      ),
    );
    socket.on('message:done', (event) => {
      update(event.replyId, (m) => ({
        ...m,
        content: event.content,
        state: event.finishReason === 'cancelled' ? 'cancelled' : 'complete',
      }));
      void loadConversations();
    });
    socket.on('message:error', (event) => {
      if (event.replyId) update(event.replyId, (m) => ({ ...m, state: 'error', error: event.message }));
      else setError(event.message);
    });
    socket.on('session:ended', (event) => setError(event.message));
    return () => {
      socket.disconnect();
      socketRef.current = null;
    };
  }, [loadConversations]);

  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [messages]);

  const streaming = messages.find((m) => m.state === 'streaming');
  const current = conversations.find((c) => c.id === conversationId);
  const characterName = current ? (names.get(current.characterId) ?? 'Character') : 'Character';

  /** The new reply (or new alternative) of a user message, kept until the user picks another. */
  const startReply = (ack: AckOrError, parentId: string) => {
    if ('error' in ack) {
      setError(ack.error.message);
      return false;
    }
    setMessages((list) => {
      // Deltas may arrive before the acknowledgement: keep what they brought.
      const early = list.find((m) => m.id === ack.replyId);
      const reply: Message = {
        id: ack.replyId,
        role: 'assistant',
        content: early?.content ?? '',
        state: early?.state ?? 'streaming',
        parentId,
        selected: true,
      };
      return [
        ...list
          .filter((m) => m.id !== ack.replyId)
          .map((m) => (m.role === 'assistant' && m.parentId === parentId ? { ...m, selected: false } : m)),
        reply,
      ];
    });
    setBrowsing((map) => new Map(map).set(parentId, ack.replyId));
    return true;
  };

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const socket = socketRef.current;
    const content = draft.trim();
    if (!socket || !conversationId || !content || streaming) return;
    setError(null);
    const clientMessageId = crypto.randomUUID();
    setMessages((list) => [...list, { id: clientMessageId, role: 'user', content, state: 'complete' }]);
    setDraft('');
    const ack = await socket
      .timeout(20_000)
      .emitWithAck('message:send', { conversationId, content, clientMessageId })
      .catch(
        (): AckOrError => ({ error: { code: 'timeout', message: 'The server did not answer; try again' } }),
      );
    if ('error' in ack) {
      setMessages((list) => list.filter((m) => m.id !== clientMessageId));
      setDraft(content);
      setError(ack.error.message);
      return;
    }
    const userMessageId = ack.userMessageId;
    setMessages((list) => list.map((m) => (m.id === clientMessageId ? { ...m, id: userMessageId } : m)));
    startReply(ack, userMessageId);
  };

  const stop = () => {
    if (streaming) socketRef.current?.emit('message:stop', { replyId: streaming.id }, () => undefined);
  };

  const regenerate = async (reply: Message) => {
    const socket = socketRef.current;
    const parentId = reply.parentId;
    if (!socket || streaming || !parentId) return;
    setError(null);
    const ack = await socket
      .timeout(20_000)
      .emitWithAck('message:regenerate', { replyId: reply.id })
      .catch(
        (): AckOrError => ({ error: { code: 'timeout', message: 'The server did not answer; try again' } }),
      );
    startReply(ack, parentId);
  };

  const browse = (alternatives: Message[], to: number) => {
    const target = alternatives[to];
    if (target?.parentId) setBrowsing((map) => new Map(map).set(target.parentId ?? '', target.id));
  };

  /** Keeps this alternative: later turns see it instead of its siblings. */
  const keep = async (reply: Message) => {
    const { error: failure } = await api.POST('/v1/messages/{id}/select', {
      params: { path: { id: reply.id } },
    });
    if (failure) {
      setError(errorMessage(failure, 'Could not keep this reply'));
      return;
    }
    setMessages((list) =>
      list.map((m) =>
        m.role === 'assistant' && m.parentId === reply.parentId ? { ...m, selected: m.id === reply.id } : m,
      ),
    );
  };

  const giveFeedback = async (message: Message, change: Pick<Message, 'thumb'> | Pick<Message, 'stars'>) => {
    const { error: failure } = await api.POST('/v1/messages/{id}/feedback', {
      params: { path: { id: message.id } },
      body: change,
    });
    if (failure) setError(errorMessage(failure, 'Could not save your rating'));
    else setMessages((list) => list.map((m) => (m.id === message.id ? { ...m, ...change } : m)));
  };

  const rate = (message: Message, thumb: 'up' | 'down') =>
    giveFeedback(message, { thumb: message.thumb === thumb ? null : thumb });

  const remove = async (id: string) => {
    if (!window.confirm('Delete this conversation and its messages?')) return;
    const { error: failure } = await api.DELETE('/v1/conversations/{id}', { params: { path: { id } } });
    if (failure) setError(errorMessage(failure, 'Could not delete the conversation'));
    await loadConversations();
    if (id === conversationId) navigate('/chat');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) void send(event);
  };

  const shown = visibleMessages(messages, browsing);
  const lastReply = [...shown].reverse().find((s) => s.message.role === 'assistant')?.message;

  return (
    <div className="chat">
      <nav className="conversations" aria-label="Conversations">
        <h2>Chats</h2>
        <button type="button" onClick={() => navigate('/')}>
          New chat
        </button>
        <ul>
          {conversations.map((c) => (
            <li key={c.id} className={c.id === conversationId ? 'active' : undefined}>
              <a
                href={`/chat/${c.id}`}
                aria-current={c.id === conversationId ? 'page' : undefined}
                onClick={(event) => {
                  event.preventDefault();
                  navigate(`/chat/${c.id}`);
                }}
              >
                <Avatar characterId={c.characterId} name={names.get(c.characterId) ?? '?'} size={32} />
                <span className="conversation-title">{c.title}</span>
              </a>
              <button
                type="button"
                className="icon-button"
                aria-label={`Delete conversation ${c.title}`}
                onClick={() => void remove(c.id)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <section className="conversation" aria-label="Conversation">
        {!conversationId ? (
          <p className="empty">Pick a conversation, or start a new chat with a character.</p>
        ) : (
          <>
            <h1 className="conversation-heading">{current?.title ?? 'Conversation'}</h1>
            <ol className="messages" ref={logRef} aria-live="polite" aria-busy={streaming !== undefined}>
              {shown.map(({ message: m, alternatives }, index) => (
                <li key={m.id} className={`message message-${m.role}`} data-state={m.state}>
                  <span className="message-author">{m.role === 'user' ? 'You' : characterName}</span>
                  <p className="message-text">
                    {m.content || (m.state === 'streaming' ? '…' : '')}
                    {m.state === 'cancelled' && <span className="note"> (stopped)</span>}
                  </p>
                  {m.error && <p className="error">{m.error}</p>}
                  {/* The greeting answers nobody: only replies are rated and regenerated. */}
                  {alternatives.length > 1 && (
                    <Swipes
                      alternatives={alternatives}
                      current={m}
                      disabled={!!streaming}
                      onBrowse={(to) => browse(alternatives, to)}
                      onKeep={() => void keep(m)}
                    />
                  )}
                  {m.role === 'assistant' && m.state !== 'streaming' && index > 0 && (
                    <div className="message-actions">
                      <button
                        type="button"
                        className="icon-button"
                        aria-label="Good reply"
                        aria-pressed={m.thumb === 'up'}
                        onClick={() => void rate(m, 'up')}
                      >
                        <ThumbIcon />
                      </button>
                      <button
                        type="button"
                        className="icon-button"
                        aria-label="Bad reply"
                        aria-pressed={m.thumb === 'down'}
                        onClick={() => void rate(m, 'down')}
                      >
                        <ThumbIcon down />
                      </button>
                      <Stars
                        name={`stars-${m.id}`}
                        value={m.stars ?? null}
                        onChange={(stars) => void giveFeedback(m, { stars })}
                      />
                      {m === lastReply && m.parentId && (
                        <button type="button" onClick={() => void regenerate(m)} disabled={!!streaming}>
                          Regenerate
                        </button>
                      )}
                    </div>
                  )}
                </li>
              ))}
            </ol>
            {error && (
              <p role="alert" className="error">
                {error}
              </p>
            )}
            <form className="composer" onSubmit={(event) => void send(event)}>
              <label htmlFor="composer-input" className="visually-hidden">
                Message
              </label>
              <textarea
                id="composer-input"
                value={draft}
                onChange={(event) => setDraft(event.target.value)}
                onKeyDown={onKeyDown}
                rows={2}
                maxLength={4000}
                placeholder={`Message ${characterName}`}
              />
              {streaming ? (
                <button type="button" onClick={stop}>
                  Stop
                </button>
              ) : (
                <button type="submit" disabled={!draft.trim()}>
                  Send
                </button>
              )}
            </form>
          </>
        )}
      </section>
    </div>
  );
}
