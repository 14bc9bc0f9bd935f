import {
  buildChatCompletion,
  buildContentChunk,
  buildRoleChunk,
  buildUsage,
  buildUsageChunk,
  type CompletionIdentity,
  formatSseData,
  openAiErrorFor,
  SSE_DONE,
  SSE_HEADERS,
} from '@echoloop/openai-compat';
import type { Response } from 'express';
import type { RepliesService } from '../chat/replies.service';
import type { TurnAck } from '../chat/turn.service';
import type { TurnDone, TurnFailure, TurnSink } from '../chat/turn-sink';

export interface CompletionAsked {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  /** When the request arrived: the completion's `created`. */
  at: Date;
}

/** The completion's identity: its `id` is the reply's, the id feedback names (`POST /v1/messages/:id/feedback`). */
const identityOf = (asked: CompletionAsked, replyId: string): CompletionIdentity => ({
  id: replyId,
  created: Math.floor(asked.at.getTime() / 1000),
  model: asked.model,
});

const finishOf = (done: TurnDone) => ({
  reason: done.finishReason === 'length' ? ('length' as const) : ('stop' as const),
});

const failureBody = (failure: TurnFailure) =>
  openAiErrorFor(failure.retryable ? 503 : 502, failure.code, failure.message);

/**
 * Answers an OpenAI-compatible request with its turn: one `chat.completion`, or `chat.completion.chunk` events
 * ending in `[DONE]`. A refusal before the turn starts (429, 404, ...) propagates to the error filter, which
 * writes it in OpenAI's shape; a failure once streaming is an `error` event, as OpenAI's streams carry one.
 */
export async function respondAsOpenAi(
  res: Response,
  asked: CompletionAsked,
  replies: Pick<RepliesService, 'stop'>,
  userId: string,
  start: (sink: TurnSink) => Promise<TurnAck>,
): Promise<void> {
  if (asked.stream) return stream(res, asked, replies, userId, start);
  let settle!: (outcome: { done?: TurnDone; failure?: TurnFailure }) => void;
  const outcome = new Promise<{ done?: TurnDone; failure?: TurnFailure }>((resolve) => (settle = resolve));
  await start({
    delta: () => undefined,
    done: (done) => settle({ done }),
    error: (failure) => settle({ failure }),
  });
  const { done, failure } = await outcome;
  if (!done) {
    if (failure?.retryable) res.setHeader('Retry-After', '5');
    res.status(failure?.retryable ? 503 : 502).json(failure && failureBody(failure));
    return;
  }
  const usage = buildUsage(done.usage.promptTokens, done.usage.completionTokens);
  res
    .status(200)
    .json(buildChatCompletion(identityOf(asked, done.replyId), done.content, finishOf(done), usage));
}

async function stream(
  res: Response,
  asked: CompletionAsked,
  replies: Pick<RepliesService, 'stop'>,
  userId: string,
  start: (sink: TurnSink) => Promise<TurnAck>,
): Promise<void> {
  // Events before the turn's ack (there should be none) wait for the headers.
  const early: string[] = [];
  let open = false;
  let ended = false;
  const write = (text: string) => (open ? res.write(text) : early.push(text));
  const end = (text: string) => {
    write(text + SSE_DONE);
    ended = true;
    if (open) res.end();
  };
  const ack = await start({
    delta: (event) => write(formatSseData(buildContentChunk(identityOf(asked, event.replyId), event.delta))),
    done: (done) => {
      const identity = identityOf(asked, done.replyId);
      const usage = asked.includeUsage
        ? formatSseData(
            buildUsageChunk(identity, buildUsage(done.usage.promptTokens, done.usage.completionTokens)),
          )
        : '';
      end(formatSseData(buildContentChunk(identity, '', finishOf(done))) + usage);
    },
    error: (failure) => end(formatSseData(failureBody(failure))),
  });
  res.status(200);
  for (const [name, value] of Object.entries(SSE_HEADERS)) res.setHeader(name, value);
  res.flushHeaders();
  res.write(formatSseData(buildRoleChunk(identityOf(asked, ack.replyId))));
  open = true;
  for (const text of early.splice(0)) res.write(text);
  if (ended) res.end();
  res.on('close', () => {
    if (!res.writableEnded) void replies.stop(userId, ack.replyId);
  });
}
