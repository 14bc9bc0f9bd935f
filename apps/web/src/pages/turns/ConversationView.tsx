import { useEffect, useId, useMemo, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import { EmotionChart } from './EmotionChart';
import { useCharacters } from '../../api/use-characters';
import { COMPONENTS, feedbackText, turnListAddress, type TurnRecord, userMessageOf } from './turn-record';
import { ErrorNote } from '../../ui/ErrorNote';
import { fmt, fmtDelta, fmtTime } from '../../ui/format';
import { AppLink } from '../../ui/AppLink';
import { DataTable } from '../../ui/DataTable';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A conversation is read whole, a page of 100 at a time, up to this many turns. */
const MAX_TURNS = 2000;

/** Every labelled turn of one conversation, in order, with its reward components and the live-emotion trajectory. */
export function ConversationView({ id }: { id: string }) {
  const characters = useCharacters();
  const [turns, setTurns] = useState<TurnRecord[] | null>(null);
  const [truncated, setTruncated] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setTurns(null);
    setError(null);
    if (!UUID.test(id)) {
      setError('This is not a conversation id.');
      return;
    }
    let active = true;
    void (async () => {
      const all: TurnRecord[] = [];
      let cursor: string | null = null;
      const page = (after: string | null) =>
        api.GET('/v1/turns', {
          params: { query: { conversationId: id, limit: 100, ...(after && { cursor: after }) } },
        });
      do {
        const { data, error: failure } = await page(cursor);
        if (!active) return;
        if (!data) {
          setError(errorMessage(failure, 'Could not load the conversation'));
          return;
        }
        all.push(...data.items);
        cursor = data.nextCursor;
      } while (cursor && all.length < MAX_TURNS);
      setTruncated(cursor !== null);
      setTurns(all);
    })();
    return () => {
      active = false;
    };
  }, [id]);

  const first = turns?.[0];
  const character = first && (characters.find((c) => c.id === first.characterId)?.name ?? first.characterId);
  const points = useMemo(
    () => (turns ?? []).map((t, i) => ({ turn: i + 1, value: t.rewards.live_emotion })),
    [turns],
  );
  const back = turnListAddress();

  return (
    <section className="page turns">
      <p>
        <AppLink to={back}>← All turns</AppLink>
      </p>
      <h1>Conversation{character ? ` with ${character}` : ''}</h1>
      <ErrorNote error={error} />
      {turns === null ? (
        !error && <p className="muted">Loading…</p>
      ) : !first ? (
        <p className="muted">
          No labelled turns of this conversation (it may be unlabelled, gone, or its user did not agree to
          training use).
        </p>
      ) : (
        <>
          <p className="muted">
            User {first.user} · {turns.length} labelled turn{turns.length === 1 ? '' : 's'}
            {truncated ? ` (the first ${turns.length})` : ''} · {fmtTime(first.repliedAt)} to{' '}
            {fmtTime(turns.at(-1)?.repliedAt ?? first.repliedAt)} · conversation {id}
          </p>
          <Trajectory turns={turns} points={points} />
          <h2>Turns</h2>
          <ol className="conversation-turns">
            {turns.map((turn, index) => (
              <TurnCard key={turn.turnId} turn={turn} position={index + 1} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function Trajectory({
  turns,
  points,
}: {
  turns: TurnRecord[];
  points: { turn: number; value: number | null }[];
}) {
  const id = useId();
  return (
    <section className="trajectory-section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Live-emotion trajectory</h2>
      <div className="metric-body">
        <EmotionChart points={points} />
        <DataTable
          label="Live emotion by turn"
          caption="Live emotion by turn, with its change"
          columns={['Turn', 'Live emotion', 'Change']}
        >
          {turns.map((turn, index) => (
            <tr key={turn.turnId}>
              <th scope="row">{index + 1}</th>
              <td className="number">{fmt(turn.rewards.live_emotion)}</td>
              <td className="number">{fmtDelta(turn.liveEmotionDelta)}</td>
            </tr>
          ))}
        </DataTable>
      </div>
    </section>
  );
}

function TurnCard({ turn, position }: { turn: TurnRecord; position: number }) {
  const id = useId();
  return (
    <li>
      <article className="turn-card" aria-labelledby={`${id}-title`} data-turn={turn.turnId}>
        <h3 id={`${id}-title`}>
          Turn {position} <span className="muted">· {fmtTime(turn.repliedAt)}</span>
        </h3>
        <p className="turn-message">
          <span className="turn-author">User</span> {userMessageOf(turn)}
        </p>
        <p className="turn-message turn-reply">
          <span className="turn-author">Reply</span> {turn.reply}
        </p>
        <dl className="turn-rewards">
          {COMPONENTS.map((c) => (
            <div key={c.key}>
              <dt>{c.label}</dt>
              <dd>{fmt(turn.rewards[c.key])}</dd>
            </div>
          ))}
          <div>
            <dt>Composite</dt>
            <dd>{fmt(turn.composite?.value)}</dd>
          </div>
          <div>
            <dt>Emotion change</dt>
            <dd>{fmtDelta(turn.liveEmotionDelta)}</dd>
          </div>
          <div>
            <dt>Labels</dt>
            <dd>
              <LabelState state={turn.labelState} />
            </dd>
          </div>
          <div>
            <dt>Feedback</dt>
            <dd>
              {feedbackText(turn.feedback)}
              {turn.feedback.kept === false ? ' · not kept' : ''}
              {turn.feedback.regenerated ? ' · regenerated' : ''}
              {turn.feedback.tags.length > 0 && (
                <span className="muted"> · tags: {turn.feedback.tags.join(', ')}</span>
              )}
            </dd>
          </div>
          {turn.feedback.comment && (
            <div>
              <dt>Comment</dt>
              <dd>{turn.feedback.comment}</dd>
            </div>
          )}
        </dl>
        <p className="muted turn-meta">
          {turn.checkpointId}
          {turn.armId ? ` / ${turn.armId}` : ''} · labeller {turn.labellerVersion ?? 'none yet'}
        </p>
      </article>
    </li>
  );
}

const LABEL_STATUS_TEXT: Record<TurnRecord['labelState']['status'], string> = {
  pending: 'labels pending',
  labelled: 'all labelled',
  partially_failed: 'partly failed',
  failed: 'failed',
};

/** Whether every reward component was labelled, and why those that failed did. */
function LabelState({ state }: { state: TurnRecord['labelState'] }) {
  return (
    <>
      <span
        className={
          state.status === 'labelled' ? undefined : state.status === 'pending' ? 'muted' : 'label-failed'
        }
      >
        {LABEL_STATUS_TEXT[state.status]}
      </span>
      {state.failures.map((f) => (
        <span key={f.component} className="muted">
          {' '}
          · {f.component}: {f.reason}
        </span>
      ))}
    </>
  );
}
