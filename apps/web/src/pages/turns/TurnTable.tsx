import { navigate } from '../../router';
import { COMPONENTS, feedbackText, type TurnRecord, userMessageOf } from './turn-record';
import { clip, fmt, fmtTime } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

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
    <DataTable
      label="Labelled turns"
      caption="Labelled turns, oldest first; open a turn’s time to read its conversation"
      className="turns-table"
      columns={['Replied', 'Character', 'Checkpoint / arm', 'User message', 'Reply', 'Feedback']}
    >
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
    </DataTable>
  );
}
