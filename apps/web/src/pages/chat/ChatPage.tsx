import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import { navigate } from '../../router';
import { type Conversation, ConversationList } from './ConversationList';
import { MessageItem } from './MessageItem';
import { visibleMessages } from './messages';
import { useConversation } from './useConversation';
import { ErrorNote } from '../../ui/ErrorNote';

export function ChatPage({ conversationId }: { conversationId: string | undefined }) {
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map());
  const [draft, setDraft] = useState('');
  const logRef = useRef<HTMLOListElement | null>(null);

  const loadConversations = useCallback(async () => {
    const { data } = await api.GET('/v1/conversations');
    if (data) setConversations(data.items);
  }, []);
  const chat = useConversation(conversationId, loadConversations);
  const { messages, streaming, error, setError } = chat;

  useEffect(() => {
    void loadConversations();
    void api.GET('/v1/characters').then(({ data }) => {
      if (data) setNames(new Map(data.items.map((c) => [c.id, c.name])));
    });
  }, [loadConversations]);

  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [messages]);

  const current = conversations.find((c) => c.id === conversationId);
  const characterName = current ? (names.get(current.characterId) ?? 'Character') : 'Character';

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const content = draft.trim();
    if (!content || streaming) return;
    setDraft('');
    if (!(await chat.send(content))) setDraft(content);
  };

  const remove = async ({ id }: Conversation) => {
    if (!window.confirm('Delete this conversation and its messages?')) return;
    const { error: failure } = await api.DELETE('/v1/conversations/{id}', { params: { path: { id } } });
    if (failure) setError(errorMessage(failure, 'Could not delete the conversation'));
    await loadConversations();
    if (id === conversationId) navigate('/chat');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) void send(event);
  };

  const shown = visibleMessages(messages, chat.browsing);
  const lastReply = [...shown].reverse().find((s) => s.message.role === 'assistant')?.message;

  return (
    <div className="chat">
      <ConversationList
        conversations={conversations}
        currentId={conversationId}
        names={names}
        onDelete={(c) => void remove(c)}
      />
      <section className="conversation" aria-label="Conversation">
        {!conversationId ? (
          <p className="empty">Pick a conversation, or start a new chat with a character.</p>
        ) : (
          <>
            <h1 className="conversation-heading">{current?.title ?? 'Conversation'}</h1>
            <ol className="messages" ref={logRef} aria-live="polite" aria-busy={streaming !== undefined}>
              {shown.map(({ message: m, alternatives }, index) => (
                <MessageItem
                  key={m.id}
                  message={m}
                  alternatives={alternatives}
                  author={m.role === 'user' ? 'You' : characterName}
                  ratable={index > 0}
                  canRegenerate={m === lastReply && !!m.parentId}
                  busy={!!streaming}
                  onBrowse={(to) => chat.browse(alternatives, to)}
                  onKeep={() => void chat.keep(m)}
                  onThumb={(thumb) => void chat.giveFeedback(m, { thumb: m.thumb === thumb ? null : thumb })}
                  onStars={(stars) => void chat.giveFeedback(m, { stars })}
                  onRegenerate={() => void chat.regenerate(m)}
                  onEdit={(content) => chat.edit(m, content)}
                />
              ))}
            </ol>
            <ErrorNote error={error} />
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
                <button type="button" onClick={chat.stop}>
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
