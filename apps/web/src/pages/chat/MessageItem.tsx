import type { Message } from './messages';
import { Stars } from './Stars';
import { Swipes } from './Swipes';
import { ThumbIcon } from './ThumbIcon';

/** One message of the conversation; a reply carries its alternatives, ratings and (the last one) Regenerate. */
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
}) {
  return (
    <li className={`message message-${m.role}`} data-state={m.state}>
      <span className="message-author">{author}</span>
      <p className="message-text">
        {m.content || (m.state === 'streaming' ? '…' : '')}
        {m.state === 'cancelled' && <span className="note"> (stopped)</span>}
      </p>
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
