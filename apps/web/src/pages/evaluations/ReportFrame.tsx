import { useEffect, useId, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import type { Report } from './evaluation';
import { ErrorNote } from '../../ui/ErrorNote';

/**
 * One side's report: its title and pinned models, its HTML page on demand in a sandboxed frame (its scripts run in
 * an origin of their own: no access to this page or its session), and a download of that page.
 */
export function ReportFrame({ side, id, report }: { side: 'A' | 'B'; id: string; report: Report }) {
  const headingId = useId();
  const [html, setHtml] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [download, setDownload] = useState<string | null>(null);

  useEffect(() => {
    if (!html) return;
    const url = URL.createObjectURL(new Blob([html], { type: 'text/html' }));
    setDownload(url);
    return () => URL.revokeObjectURL(url);
  }, [html]);

  const toggle = async () => {
    if (!open && html === null) {
      const { data, error: failure } = await api.GET('/v1/evaluations/{id}/report.html', {
        params: { path: { id } },
        parseAs: 'text',
      });
      if (failure || typeof data !== 'string') {
        setError(errorMessage(failure, 'Could not load the report'));
        return;
      }
      setHtml(data);
    }
    setOpen(!open);
  };

  return (
    <article className="report-card" aria-labelledby={headingId}>
      <h3 id={headingId}>
        {side}: {report.title}
      </h3>
      <dl className="report-pinned">
        {Object.entries(report.pinned).map(([role, model]) => (
          <div key={role}>
            <dt>{role}</dt>
            <dd>{model}</dd>
          </div>
        ))}
      </dl>
      <div className="button-row">
        <button type="button" className="secondary" aria-expanded={open} onClick={() => void toggle()}>
          {open ? `Hide report ${side}` : `Open report ${side}`}
        </button>
        {download && (
          <a className="report-download" href={download} download={`evaluation-${id}.html`}>
            Download report {side}
          </a>
        )}
      </div>
      <ErrorNote error={error} />
      {open && html !== null && (
        <iframe
          className="report-frame"
          title={`Report ${side}: ${report.title}`}
          sandbox="allow-scripts"
          srcDoc={html}
        />
      )}
    </article>
  );
}
