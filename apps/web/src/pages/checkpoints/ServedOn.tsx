import type { Reply } from '../../api/client';

type Checkpoint = Reply<'get', '/v1/checkpoints'>['items'][number];

/**
 * A checkpoint's endpoints and, for a LoRA adapter, whether each serves it now (as the adapter reconciler last saw
 * it), with the endpoint's reason when it does not.
 */
export function ServedOn({ checkpoint }: { checkpoint: Checkpoint }) {
  return (
    <ul className="plain served-on">
      {checkpoint.endpoints.map(({ baseUrl }) => {
        const placement = checkpoint.servedOn.find((p) => p.baseUrl === baseUrl);
        return (
          <li key={baseUrl} data-endpoint={baseUrl}>
            {baseUrl}
            {checkpoint.adapterPath !== null && (
              <>
                {' '}
                <span className="status">{placement?.state ?? 'not wanted'}</span>
                {placement?.detail && <span className="muted"> ({placement.detail})</span>}
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}
