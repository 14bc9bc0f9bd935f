import { navigate } from '../../router';
import { clip, COMPONENTS, feedbackText, fmt, fmtTime, type TurnRecord, userMessageOf } from './shared';

/** Labelled turns, oldest first; a turn's time opens its conversation. */
export function TurnTable({
  turns,
  names,
  onOpen,
}: {
  turns: TurnRecord[];
  names: Map<string, string>;
  onOpen?: () => void;
}) {
  return (
    <div className="table-scroll" role="region" aria-label="Labelled turns" tabIndex={0}>
      <table className="data-table turns-table">
        <caption className="visually-hidden">
          Labelled turns, oldest first; open a turn’s time to read its conversation
        </caption>
        <thead>
          <tr>
            <th scope="col">Replied</th>
            <th scope="col">Character</th>
            <th scope="col">Checkpoint / arm</th>
            <th scope="col">User message</th>
            <th scope="col">Reply</th>
            {COMPONENTS.map((c) => (
              <th key={c.key} scope="col" className="number">
                {c.label}
              </th>
            ))}
            <th scope="col">Feedback</th>
          </tr>
        </thead>
        <tbody>
          {turns.map((turn) => {
            const href = `/turns/${turn.conversationId}`;
            return (
              <tr key={turn.turnId} data-turn={turn.turnId}>
                <td className="nowrap">
                  <a
                    href={href}
                    onClick={(event) => {
                      event.preventDefault();
                      onOpen?.();
                      navigate(href);
                    }}
                  >
                    {fmtTime(turn.repliedAt, 'short')}
                    <span className="visually-hidden"> (open its conversation)</span>
                  </a>
                </td>
                <td>{names.get(turn.characterId) ?? turn.characterId.slice(0, 8)}</td>
                <td>
                  {turn.checkpointId}
                  {turn.armId && <span className="muted"> / {turn.armId}</span>}
                </td>
                <td className="message-cell">{clip(userMessageOf(turn))}</td>
                <td className="message-cell">{clip(turn.reply)}</td>
                {COMPONENTS.map((c) => (
                  <td key={c.key} className="number">
                    {fmt(turn.rewards[c.key])}
                  </td>
                ))}
                <td className="nowrap">{feedbackText(turn.feedback)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
