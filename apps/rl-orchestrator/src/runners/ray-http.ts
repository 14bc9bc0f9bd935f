import { request } from 'node:http';
import { ServiceCallError } from '@echoloop/platform';

export interface RayResponse {
  ok: boolean;
  status: number;
  text: string;
}

/**
 * One JSON request to Ray's dashboard over node:http. Not fetch: Ray refuses POSTs that look like browser traffic,
 * and fetch always sends the `Sec-Fetch-Mode` header by which it tells them apart.
 */
export function rayRequest(url: URL, method: string, body: unknown, timeoutMs: number): Promise<RayResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        headers: {
          accept: 'application/json',
          ...(payload !== undefined && {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
          }),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve({
            ok: status >= 200 && status < 300,
            status,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', (error) => reject(unreachable(error)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (error) => reject(unreachable(error)));
    req.end(payload);
  });
}

const unreachable = (error: Error) => new ServiceCallError('ray', null, `unreachable (${error.message})`);
