import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';
import { type AckOrError, type ChatSocket, connectChat } from '../api/chat-socket';
import { api, errorMessage } from '../api/client';
import type { paths } from '../api/gateway';
import { navigate } from '../router';
import { Avatar } from './Avatar';
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
  error?: string;
  thumb?: 'up' | 'down' | null;
}

/** What the conversation shows: no system turns, and of a reply's alternatives only the kept one. */
function visibleMessages(stored: StoredMessage[]): Message[] {
  const keptReply = new Map<string, string>();
  for (const m of stored) {
    if (m.role !== 'assistant' || !m.parentId) continue;
    if (m.selected || !keptReply.has(m.parentId)) keptReply.set(m.parentId, m.id);
  }
  return stored
    .filter((m) => m.role !== 'system')
    .filter((m) => m.role === 'user' || !m.parentId || keptReply.get(m.parentId) === m.id)
    .map((m) => ({
      id: m.id,
      role: m.role === 'user' ? 'user' : 'assistant',
      content: m.content,
      state: m.status,
    }));
}

export function ChatPage({ conversationId }: { conversationId: string | undefined }) {
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [names, setNames] = useState<Map<string, string>>(new Map());
  const [messages, setMessages] = useState<Message[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
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
    setError(null);
    if (!conversationId) return;
    let cancelled = false;
    void api
      .GET('/v1/conversations/{id}/messages', {
        params: { path: { id: conversationId }, query: { limit: 100 } },
      })
      .then(({ data, error: failure }) => {
        if (cancelled) return;
        if (data) setMessages(visibleMessages(data.items));
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

  const startReply = (ack: AckOrError, replaces?: string) => {
    if ('error' in ack) {
      setError(ack.error.message);
      return false;
    }
    const placeholder: Message = { id: ack.replyId, role: 'assistant', content: '', state: 'streaming' };
    setMessages((list) => {
      const without = list.filter((m) => m.id !== ack.replyId);
      return replaces ? without.map((m) => (m.id === replaces ? placeholder : m)) : [...without, placeholder];
    });
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
    } else {
      const userMessageId = ack.userMessageId;
      setMessages((list) => list.map((m) => (m.id === clientMessageId ? { ...m, id: userMessageId } : m)));
    }
    startReply(ack);
  };

  const stop = () => {
    if (streaming) socketRef.current?.emit('message:stop', { replyId: streaming.id }, () => undefined);
  };

  const regenerate = async (replyId: string) => {
    const socket = socketRef.current;
    if (!socket || streaming) return;
    setError(null);
    const ack = await socket
      .timeout(20_000)
      .emitWithAck('message:regenerate', { replyId })
      .catch(
        (): AckOrError => ({ error: { code: 'timeout', message: 'The server did not answer; try again' } }),
      );
    startReply(ack, replyId);
  };

  const rate = async (message: Message, thumb: 'up' | 'down') => {
    const next = message.thumb === thumb ? null : thumb;
    const { error: failure } = await api.POST('/v1/messages/{id}/feedback', {
      params: { path: { id: message.id } },
      body: { thumb: next },
    });
    if (failure) setError(errorMessage(failure, 'Could not save your rating'));
    else setMessages((list) => list.map((m) => (m.id === message.id ? { ...m, thumb: next } : m)));
  };

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

  const lastReply = [...messages].reverse().find((m) => m.role === 'assistant');

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
              {messages.map((m, index) => (
                <li key={m.id} className={`message message-${m.role}`} data-state={m.state}>
                  <span className="message-author">{m.role === 'user' ? 'You' : characterName}</span>
                  <p className="message-text">
                    {m.content || (m.state === 'streaming' ? '…' : '')}
                    {m.state === 'cancelled' && <span className="note"> (stopped)</span>}
                  </p>
                  {m.error && <p className="error">{m.error}</p>}
                  {/* The greeting answers nobody: only replies are rated and regenerated. */}
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
                      {m === lastReply && (
                        <button type="button" onClick={() => void regenerate(m.id)} disabled={!!streaming}>
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
