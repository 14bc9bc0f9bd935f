import type { paths } from '../../api/gateway';
import { navigate } from '../../router';
import { Avatar } from '../Avatar';

export type Conversation =
  paths['/v1/conversations']['get']['responses'][200]['content']['application/json']['items'][number];

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
            <a
              href={`/chat/${c.id}`}
              aria-current={c.id === currentId ? 'page' : undefined}
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
