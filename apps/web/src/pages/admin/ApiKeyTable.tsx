import type { ApiKey } from './api-keys';
import { ConfirmAction } from '../../ui/ConfirmAction';
import { when } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

/** Every key with its scope and dates; rotate and revoke for the ones still in use. */
export function ApiKeyTable({
  keys,
  busy,
  onRotate,
  onRevoke,
}: {
  keys: ApiKey[];
  busy: boolean;
  onRotate: (key: ApiKey) => Promise<void>;
  onRevoke: (key: ApiKey) => Promise<void>;
}) {
  return (
    <DataTable
      label={'API keys'}
      className="admin-table"
      columns={[
        'Name',
        'Starts with',
        'Services',
        'Roles',
        'Status',
        'Created',
        'Expires',
        'Last used',
        'Actions',
      ]}
    >
      {keys.map((key) => (
        <tr key={key.id} data-key-id={key.id}>
          <th scope="row">{key.name}</th>
          <td>
            <code>{key.prefix}…</code>
          </td>
          <td>{key.services.join(', ')}</td>
          <td>{key.roles.join(', ')}</td>
          <td>
            <span className={`status status-${key.status}`}>{key.status}</span>
            {key.status === 'revoked' && <span className="muted"> {when(key.revokedAt)}</span>}
            {key.previousSecretValidUntil && (
              <div className="muted">old secret until {when(key.previousSecretValidUntil)}</div>
            )}
          </td>
          <td>{when(key.createdAt)}</td>
          <td>{when(key.expiresAt)}</td>
          <td>{key.lastUsedAt ? when(key.lastUsedAt) : 'never'}</td>
          <td>
            {key.status !== 'revoked' && (
              <div className="key-actions">
                {key.status === 'active' && (
                  <ConfirmAction
                    label="Rotate"
                    question={`Rotate ${key.name}?`}
                    confirmLabel="Yes, new secret"
                    danger={false}
                    disabled={busy}
                    onConfirm={() => onRotate(key)}
                  />
                )}
                <ConfirmAction
                  label="Revoke"
                  question={`Revoke ${key.name}? It stops working at once.`}
                  confirmLabel="Yes, revoke"
                  disabled={busy}
                  onConfirm={() => onRevoke(key)}
                />
              </div>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
