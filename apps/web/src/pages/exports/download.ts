import { refreshSession } from '../../api/client';
import { loadTokens } from '../../api/session';
import type { DatasetExport } from './types';

/** The file name the gateway gives (Content-Disposition), else `<kind>-<id>.<format>`. */
export function fileNameOf(disposition: string | null, fallback: string): string {
  const name = /filename="?([^";]+)"?/i.exec(disposition ?? '')?.[1]?.trim();
  // Only a plain name: never a path.
  return name && /^[A-Za-z0-9._-]{1,200}$/.test(name) ? name : fallback;
}

async function fetchFile(id: string): Promise<Response> {
  const get = () =>
    fetch(`/v1/exports/${encodeURIComponent(id)}/download`, {
      headers: { authorization: `Bearer ${loadTokens()?.accessToken ?? ''}` },
    });
  const response = await get();
  // An expired access token: refresh the session once and ask again, as the API client does.
  if (response.status === 401 && (await refreshSession())) return get();
  return response;
}

/**
 * Downloads an export's file. A plain link cannot carry the Authorization header (and a token in the address
 * would land in logs and history), so the file is fetched with the bearer token and saved from a Blob.
 * Resolves to an error sentence, or null once the browser has the file.
 */
export async function downloadExport(
  e: Pick<DatasetExport, 'id' | 'kind' | 'format'>,
): Promise<string | null> {
  let response: Response;
  try {
    response = await fetchFile(e.id);
  } catch {
    return 'Could not reach the server; try again';
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    return body?.error?.message ?? `The download failed (${response.status})`;
  }
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileNameOf(response.headers.get('content-disposition'), `${e.kind}-${e.id}.${e.format}`);
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has started reading the blob by now; free it a little later.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return null;
}
