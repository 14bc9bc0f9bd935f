import { useCallback, useEffect, useRef, useState } from 'react';
import { type AckOrError, type ChatSocket, connectChat, type ReplyInProgress } from '../../api/chat-socket';
import { api, errorMessage } from '../../api/client';
import { fromStored, type Message, StreamedText } from './messages';

const ACK_TIMEOUT_MS = 20_000;
const noAnswer = (): AckOrError => ({
  error: { code: 'timeout', message: 'The server did not answer; try again' },
});

/**
 * One conversation's messages, kept live over the chat socket: streamed replies, and after a dropped connection
 * or a reload the replies still streaming picked up where they are (`message:resume`).
 */
export function useConversation(conversationId: string | undefined, onReplyDone: () => void) {
  const [messages, setMessages] = useState<Message[]>([]);
  const [error, setError] = useState<string | null>(null);
  /** Per user message, the alternative being looked at (not necessarily the kept one). */
  const [browsing, setBrowsing] = useState<ReadonlyMap<string, string>>(new Map());
  const socketRef = useRef<ChatSocket | null>(null);
  const streams = useRef(new Map<string, StreamedText>());
  const loaded = useRef<string | null>(null);

  const streamOf = (replyId: string) => {
    let text = streams.current.get(replyId);
    if (!text) streams.current.set(replyId, (text = new StreamedText()));
    return text;
  };

  /** A reply streaming now, placed after its user message and kept until the user picks another. */
  const upsertReply = useCallback((replyId: string, parentId: string, content: string) => {
    setMessages((list) => {
      const early = list.find((m) => m.id === replyId);
      const reply: Message = {
        id: replyId,
        role: 'assistant',
        content: early && early.content.length > content.length ? early.content : content,
        state: early?.state ?? 'streaming',
        parentId,
        selected: true,
      };
      return [
        ...list
          .filter((m) => m.id !== replyId)
          .map((m) => (m.role === 'assistant' && m.parentId === parentId ? { ...m, selected: false } : m)),
        reply,
      ];
    });
    setBrowsing((map) => new Map(map).set(parentId, replyId));
  }, []);

  const resume = useCallback(
    async (id: string) => {
      const socket = socketRef.current;
      if (!socket?.connected || loaded.current !== id) return;
      const result = await socket
        .timeout(ACK_TIMEOUT_MS)
        .emitWithAck('message:resume', { conversationId: id })
        .catch(() => ({ replies: [] as ReplyInProgress[] }));
      if ('error' in result) return;
      for (const reply of result.replies) {
        upsertReply(
          reply.replyId,
          reply.userMessageId,
          streamOf(reply.replyId).snapshot(reply.index, reply.content),
        );
      }
    },
    [upsertReply],
  );

  useEffect(() => {
    setMessages([]);
    setBrowsing(new Map());
    setError(null);
    loaded.current = null;
    if (!conversationId) return;
    let cancelled = false;
    void api
      .GET('/v1/conversations/{id}/messages', {
        params: { path: { id: conversationId }, query: { limit: 100 } },
      })
      .then(({ data, error: failure }) => {
        if (cancelled) return;
        if (!data) {
          setError(errorMessage(failure, 'Could not load this conversation'));
          return;
        }
        setMessages(fromStored(data.items));
        loaded.current = conversationId;
        void resume(conversationId);
      });
    return () => {
      cancelled = true;
    };
  }, [conversationId, resume]);

  useEffect(() => {
    const socket = connectChat();
    socketRef.current = socket;
    const update = (id: string, change: (m: Message) => Message) =>
      setMessages((list) => list.map((m) => (m.id === id ? change(m) : m)));
    socket.on('connect', () => {
      if (loaded.current) void resume(loaded.current);
    });
    socket.on('message:delta', (event) => {
      const content = streamOf(event.replyId).delta(event.index, event.delta);
      setMessages((list) =>
        list.some((m) => m.id === event.replyId)
          ? list.map((m) => (m.id === event.replyId ? { ...m, content } : m))
          : [...list, { id: event.replyId, role: 'assistant', content, state: 'streaming' }],
      );
    });
    socket.on('message:done', (event) => {
      streams.current.delete(event.replyId);
      update(event.replyId, (m) => ({
        ...m,
        content: event.content,
        state: event.finishReason === 'cancelled' ? 'cancelled' : 'complete',
      }));
      onReplyDone();
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
  }, [onReplyDone, resume]);

  const streaming = messages.find((m) => m.state === 'streaming');

  const started = (ack: AckOrError, parentId: string) => {
    if ('error' in ack) setError(ack.error.message);
    else upsertReply(ack.replyId, parentId, '');
  };

  const send = async (content: string): Promise<boolean> => {
    const socket = socketRef.current;
    if (!socket || !conversationId || streaming) return false;
    setError(null);
    const clientMessageId = crypto.randomUUID();
    setMessages((list) => [...list, { id: clientMessageId, role: 'user', content, state: 'complete' }]);
    const ack = await socket
      .timeout(ACK_TIMEOUT_MS)
      .emitWithAck('message:send', { conversationId, content, clientMessageId })
      .catch(noAnswer);
    if ('error' in ack) {
      setMessages((list) => list.filter((m) => m.id !== clientMessageId));
      setError(ack.error.message);
      return false;
    }
    setMessages((list) => list.map((m) => (m.id === clientMessageId ? { ...m, id: ack.userMessageId } : m)));
    started(ack, ack.userMessageId);
    return true;
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
      .timeout(ACK_TIMEOUT_MS)
      .emitWithAck('message:regenerate', { replyId: reply.id })
      .catch(noAnswer);
    started(ack, parentId);
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

  /** The user's text in place of a reply's: what the conversation continues from (the model's text is kept). */
  const edit = async (reply: Message, content: string): Promise<boolean> => {
    const { data, error: failure } = await api.PATCH('/v1/messages/{id}', {
      params: { path: { id: reply.id } },
      body: { content },
    });
    if (!data) {
      setError(errorMessage(failure, 'Could not save your edit'));
      return false;
    }
    setMessages((list) =>
      list.map((m) =>
        m.id === reply.id
          ? { ...m, content: data.content, originalContent: data.edited?.originalContent ?? null }
          : m,
      ),
    );
    return true;
  };

  return {
    messages,
    browsing,
    streaming,
    error,
    setError,
    send,
    stop,
    regenerate,
    browse,
    keep,
    giveFeedback,
    edit,
  };
}
