import { useCallback, useEffect, useMemo, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import { navigate } from '../../router';
import type { StaffPageProps } from '../../staff-page-props';
import { ConversationView } from './ConversationView';
import { describeFilters, filterSearch, parseFilters, toApiFilters } from './filters';
import { TurnFilterForm } from './TurnFilterForm';
import { TurnTable } from './TurnTable';
import './turns.css';
import { useCharacters } from '../../api/use-characters';
import { rememberTurnList, type TurnRecord } from './turn-record';
import { useSearch } from '../../router';
import { ErrorNote } from '../../ui/ErrorNote';

const PAGE = 50;

/** The page size: `?limit=` in the address (1-100), else PAGE. */
function pageSize(search: string): number {
  const asked = Number(new URLSearchParams(search).get('limit'));
  return Number.isInteger(asked) && asked >= 1 && asked <= 100 ? asked : PAGE;
}

/** Labelled turns for data teams: filter and page through them, or read one conversation (`/turns/<id>`). */
export function TurnsPage({ id }: StaffPageProps) {
  return id ? <ConversationView id={id} /> : <TurnList />;
}

function TurnList() {
  const search = useSearch();
  const characters = useCharacters();
  const names = useMemo(() => new Map(characters.map((c) => [c.id, c.name])), [characters]);
  const values = useMemo(() => parseFilters(search), [search]);
  const query = useMemo(() => toApiFilters(values), [values]);
  const limit = pageSize(search);
  const [turns, setTurns] = useState<TurnRecord[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const load = useCallback(
    async (after: string | null) => {
      setLoading(true);
      const { data, error: failure } = await api.GET('/v1/turns', {
        params: { query: { ...query, limit, ...(after && { cursor: after }) } },
      });
      setLoading(false);
      if (!data) {
        setError(errorMessage(failure, 'Could not load the turns'));
        return null;
      }
      setError(null);
      return data;
    },
    [query, limit],
  );

  useEffect(() => {
    let active = true;
    setTurns(null);
    setCursor(null);
    void load(null).then((data) => {
      if (!active || !data) return;
      setTurns(data.items);
      setCursor(data.nextCursor);
    });
    return () => {
      active = false;
    };
  }, [load]);

  const more = async () => {
    if (!cursor) return;
    const data = await load(cursor);
    if (!data) return;
    setTurns((current) => [...(current ?? []), ...data.items]);
    setCursor(data.nextCursor);
  };

  const filtered = describeFilters(query, names);
  const exportAddress = `/exports${filterSearch(values)}`;
  return (
    <section className="page turns">
      <h1>Turns</h1>
      <p className="muted">
        Labelled turns of users who agreed to training use, oldest first. Users are pseudonymous and messages
        are PII-redacted.
      </p>
      <TurnFilterForm
        key={search}
        initial={values}
        characters={characters}
        onApply={(next) => navigate(`/turns${filterSearch(next)}`)}
      />
      <ErrorNote error={error} />
      <p role="status" className="muted">
        {turns === null
          ? loading
            ? 'Loading…'
            : ''
          : `${turns.length}${cursor ? '+' : ''} turn${turns.length === 1 ? '' : 's'}${filtered ? ` where ${filtered}` : ''}.`}
      </p>
      {turns !== null &&
        (turns.length === 0 ? (
          <p className="muted">No labelled turns match these filters.</p>
        ) : (
          <TurnTable turns={turns} names={names} onOpen={() => rememberTurnList(search)} />
        ))}
      <div className="button-row">
        {cursor && (
          <button type="button" className="secondary" disabled={loading} onClick={() => void more()}>
            Load more
          </button>
        )}
        <a
          className="button-link"
          href={exportAddress}
          onClick={(event) => {
            event.preventDefault();
            navigate(exportAddress);
          }}
        >
          Export these turns…
        </a>
      </div>
    </section>
  );
}
