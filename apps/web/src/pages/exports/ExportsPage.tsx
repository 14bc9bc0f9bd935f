import { useCallback, useEffect, useMemo, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import type { StaffPageProps } from '../../staff-page-props';
import { parseFilters } from '../turns/filters';
import { downloadExport } from './download';
import { ExportForm } from './ExportForm';
import { ExportTable } from './ExportTable';
import { type DatasetExport, inProgress } from './types';
import './exports.css';
import { useCharacters } from '../../api/use-characters';
import { useSearch } from '../../router';
import { ErrorNote } from '../../ui/ErrorNote';

const POLL_MS = 1_500;

/** Dataset exports for data teams: start one, follow it while it runs, download its file. */
export function ExportsPage(_props: StaffPageProps) {
  const search = useSearch();
  const turnFilters = useMemo(() => parseFilters(search), [search]);
  const characters = useCharacters();
  const names = useMemo(() => new Map(characters.map((c) => [c.id, c.name])), [characters]);
  const [exports, setExports] = useState<DatasetExport[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [downloading, setDownloading] = useState<string | null>(null);

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/exports');
    if (data) {
      setExports(data.items);
      setError(null);
    } else setError(errorMessage(failure, 'Could not load the exports'));
    return data?.items ?? null;
  }, []);
  useEffect(() => void load(), [load]);

  // While an export is queued or running, ask again every POLL_MS (and say when it ends).
  const running = exports?.filter(inProgress).map((e) => e.id) ?? [];
  const runningKey = running.join(',');
  useEffect(() => {
    if (!runningKey) return;
    const ids = runningKey.split(',');
    const timer = setTimeout(() => {
      void load().then((items) => {
        const ended = items?.filter((e) => ids.includes(e.id) && !inProgress(e)) ?? [];
        for (const e of ended) {
          setStatus(
            e.status === 'succeeded'
              ? `The export finished with ${e.rows ?? 0} rows.`
              : `The export ended: ${e.status}.`,
          );
        }
      });
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [runningKey, exports, load]);

  const download = async (e: DatasetExport) => {
    setDownloading(e.id);
    setError(null);
    const failure = await downloadExport(e);
    setDownloading(null);
    if (failure) setError(failure);
    else setStatus('Download started.');
  };

  return (
    <section className="page exports">
      <h1>Exports</h1>
      <ExportForm
        key={search}
        turnFilters={turnFilters}
        names={names}
        onStarted={(started) => {
          setStatus('Export started; it runs in the background.');
          setExports((current) => [started, ...(current ?? []).filter((e) => e.id !== started.id)]);
        }}
      />
      <h2>Recent exports</h2>
      <ErrorNote error={error} />
      <p role="status" className="muted">
        {status}
      </p>
      {exports === null ? (
        !error && <p className="muted">Loading…</p>
      ) : exports.length === 0 ? (
        <p className="muted">No exports yet.</p>
      ) : (
        <ExportTable
          exports={exports}
          names={names}
          downloading={downloading}
          onDownload={(e) => void download(e)}
        />
      )}
    </section>
  );
}
