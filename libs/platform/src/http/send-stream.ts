import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Where a stream that broke on its way to a client is reported. */
export interface StreamFailureSink {
  warn(fields: { err: unknown; what: string }, message: string): void;
}

/**
 * Pipes a file or network stream to a client response, its errors handled on both sides: a source that fails
 * (a file gone, a bucket connection reset) or a client that leaves ends the response (cut short, so the client
 * sees an incomplete body, never a silently short file) and is logged; nothing is thrown and the process lives.
 * Resolves whether the whole stream reached the client.
 */
export async function sendStream(
  source: Readable,
  res: ServerResponse,
  what: string,
  sink: StreamFailureSink,
): Promise<boolean> {
  try {
    await pipeline(source, res);
    return true;
  } catch (error) {
    const clientLeft =
      res.destroyed &&
      !res.writableFinished &&
      (error as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE';
    sink.warn(
      { err: error, what },
      clientLeft ? 'the client left during a download' : 'a download broke off: its source failed',
    );
    return false;
  }
}
