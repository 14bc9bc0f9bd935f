import { describeFilters } from '../turns/filters';
import { type DatasetExport, inProgress, kindLabel } from './types';
import { fmtTime } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

function statusText(e: DatasetExport): string {
  if (e.status === 'running') {
    const { read, total } = e.progress;
    return total ? `running (${Math.min(100, Math.round((read / total) * 100))}%)` : 'running';
  }
  if (e.status === 'failed') return `failed${e.error ? ` (${e.error})` : ''}`;
  if (e.status === 'erased') return 'erased (a user in it deleted their data)';
  return e.status;
}

/** The newest exports with their status, row counts and a download for each finished one. */
export function ExportTable({
  exports,
  names,
  downloading,
  onDownload,
}: {
  exports: DatasetExport[];
  names: Map<string, string>;
  downloading: string | null;
  onDownload: (e: DatasetExport) => void;
}) {
  return (
    <DataTable
      label="Exports"
      caption="Exports, newest first"
      className="exports-table"
      columns={[
        'Requested',
        'Dataset',
        'Format',
        'Filters',
        'Status',
        { label: 'Rows', className: 'number' },
        'File',
      ]}
    >
      {exports.map((e) => {
        const when = fmtTime(e.createdAt);
        return (
          <tr key={e.id} data-export={e.id} aria-busy={inProgress(e)}>
            <td className="nowrap">{when}</td>
            <td>{kindLabel(e.kind)}</td>
            <td>{e.format.toUpperCase()}</td>
            <td>{describeFilters(e.filters, names) || <span className="muted">none</span>}</td>
            <td>
              <span className={`status status-${e.status}`}>{statusText(e)}</span>
            </td>
            <td className="number">{e.rows ?? '–'}</td>
            <td>
              {e.status === 'succeeded' ? (
                <button
                  type="button"
                  className="secondary"
                  disabled={downloading === e.id}
                  onClick={() => onDownload(e)}
                >
                  Download
                  <span className="visually-hidden">
                    {' '}
                    {kindLabel(e.kind)} {e.format.toUpperCase()} of {when}
                  </span>
                </button>
              ) : (
                <span className="muted">–</span>
              )}
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
