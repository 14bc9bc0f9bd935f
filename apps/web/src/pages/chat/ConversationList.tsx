import type { Reply } from '../../api/client';
import { navigate } from '../../router';
import { AppLink } from '../../ui/AppLink';
import { Avatar } from '../Avatar';

export type Conversation = Reply<'get', '/v1/conversations'>['items'][number];

/** The user's conversations, newest first, each with its character's avatar and a delete button. */
export function ConversationList({
  conversations,
  currentId,
  names,
  onDelete,
}: {
  conversations: Conversation[];
  currentId: string | undefined;
  names: ReadonlyMap<string, string>;
  onDelete: (conversation: Conversation) => void;
}) {
  return (
    <nav className="conversations" aria-label="Conversations">
      <h2>Chats</h2>
      <button type="button" onClick={() => navigate('/')}>
        New chat
      </button>
      <ul>
        {conversations.map((c) => (
          <li key={c.id} className={c.id === currentId ? 'active' : undefined}>
            <AppLink to={`/chat/${c.id}`} current={c.id === currentId}>
              <Avatar characterId={c.characterId} name={names.get(c.characterId) ?? '?'} size={32} />
              <span className="conversation-title">{c.title}</span>
            </AppLink>
            <button
              type="button"
              className="icon-button"
              aria-label={`Delete conversation ${c.title}`}
              onClick={() => onDelete(c)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
