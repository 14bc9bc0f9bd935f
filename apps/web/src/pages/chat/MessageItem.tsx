import { useState } from 'react';
import type { Message } from './messages';
import { Stars } from './Stars';
import { Swipes } from './Swipes';
import { ThumbIcon } from './ThumbIcon';

/**
 * One message of the conversation; a reply carries its alternatives, ratings, Edit and (the last one) Regenerate.
 */
export function MessageItem({
  message: m,
  alternatives,
  author,
  ratable,
  canRegenerate,
  busy,
  onBrowse,
  onKeep,
  onThumb,
  onStars,
  onRegenerate,
  onEdit,
}: {
  message: Message;
  alternatives: Message[];
  author: string;
  /** The greeting answers nobody: only replies are rated and regenerated. */
  ratable: boolean;
  canRegenerate: boolean;
  /** A reply is streaming: no other turn may start. */
  busy: boolean;
  onBrowse: (to: number) => void;
  onKeep: () => void;
  onThumb: (thumb: 'up' | 'down') => void;
  onStars: (stars: number | null) => void;
  onRegenerate: () => void;
  /** Saves the user's text in place of the reply's; false when it was not saved. */
  onEdit: (content: string) => Promise<boolean>;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const save = async () => {
    if (draft !== null && (draft.trim() === m.content || (await onEdit(draft)))) setDraft(null);
  };
  return (
    <li className={`message message-${m.role}`} data-state={m.state}>
      <span className="message-author">{author}</span>
      {draft === null ? (
        <p className="message-text">
          {m.content || (m.state === 'streaming' ? '…' : '')}
          {m.state === 'cancelled' && <span className="note"> (stopped)</span>}
          {m.originalContent && (
            <span className="note" title={`The character wrote: ${m.originalContent}`}>
              {' '}
              (edited)
            </span>
          )}
        </p>
      ) : (
        <form
          className="message-edit"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <textarea
            aria-label="Edit the reply"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            rows={Math.min(12, Math.max(3, draft.split('\n').length + 1))}
          />
          <button type="submit" disabled={draft.trim() === ''}>
            Save
          </button>
          <button type="button" onClick={() => setDraft(null)}>
            Cancel
          </button>
        </form>
      )}
      {m.error && <p className="error">{m.error}</p>}
      {alternatives.length > 1 && (
        <Swipes alternatives={alternatives} current={m} disabled={busy} onBrowse={onBrowse} onKeep={onKeep} />
      )}
      {m.role === 'assistant' && m.state !== 'streaming' && ratable && (
        <div className="message-actions">
          <button
            type="button"
            className="icon-button"
            aria-label="Good reply"
            aria-pressed={m.thumb === 'up'}
            onClick={() => onThumb('up')}
          >
            <ThumbIcon />
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label="Bad reply"
            aria-pressed={m.thumb === 'down'}
            onClick={() => onThumb('down')}
          >
            <ThumbIcon down />
          </button>
          <Stars name={`stars-${m.id}`} value={m.stars ?? null} onChange={onStars} />
          {draft === null && (
            <button type="button" onClick={() => setDraft(m.content)} disabled={busy}>
              Edit
            </button>
          )}
          {canRegenerate && (
            <button type="button" onClick={onRegenerate} disabled={busy}>
              Regenerate
            </button>
          )}
        </div>
      )}
    </li>
  );
}
