import type { Response } from 'express';
import type { TurnDone, TurnFailure, TurnSink } from './turn-sink';
import type { RepliesService } from './replies.service';
import type { TurnAck } from './turn.service';

/**
 * Answers an HTTP request that starts a turn: Server-Sent Events when the client accepts `text/event-stream`
 * (the socket.io events, one per SSE event), otherwise one JSON body once the reply is complete.
 */
export async function respondWithTurn(
  res: Response,
  accept: string | undefined,
  replies: Pick<RepliesService, 'stop'>,
  userId: string,
  start: (sink: TurnSink) => Promise<TurnAck>,
): Promise<void> {
  if (accept?.includes('text/event-stream')) return stream(res, replies, userId, start);

  let settle!: (outcome: { done?: TurnDone; failure?: TurnFailure }) => void;
  const outcome = new Promise<{ done?: TurnDone; failure?: TurnFailure }>((resolve) => (settle = resolve));
  const ids = await start({
    delta: () => undefined,
    done: (done) => settle({ done }),
    error: (failure) => settle({ failure }),
  });
  const { done, failure } = await outcome;
  if (failure) {
    res
      .status(failure.retryable ? 503 : 502)
      .setHeader('Retry-After', '5')
      .json({ error: { code: failure.code, message: failure.message, details: ids } });
    return;
  }
  res.status(201).json({ ...ids, reply: done });
}

async function stream(
  res: Response,
  replies: Pick<RepliesService, 'stop'>,
  userId: string,
  start: (sink: TurnSink) => Promise<TurnAck>,
): Promise<void> {
  const write = (event: string, data: unknown) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const end = (event: string, data: unknown) => {
    write(event, data);
    res.end();
  };
  // A refusal (429 with Retry-After, 404, ...) propagates to the error filter, as on the JSON route.
  const ids = await start({
    delta: (event) => write('message:delta', event),
    done: (event) => end('message:done', event),
    error: (event) => end('message:error', event),
  });
  res.status(200).setHeader('Content-Type', 'text/event-stream').setHeader('Cache-Control', 'no-cache');
  res.flushHeaders();
  write('message:ack', ids);
  res.on('close', () => {
    if (!res.writableEnded) void replies.stop(userId, ids.replyId);
  });
}
