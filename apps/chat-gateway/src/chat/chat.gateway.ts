import { ApiEvent, RetryAfterException, validationDetails, withStorableText } from '@echoloop/platform';
import { SpanKind, traced } from '@echoloop/tracing';
import { HttpException, Inject, Logger } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  type OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import type { Namespace, Socket } from 'socket.io';
import type { z } from 'zod';
import type { Principal } from '../auth/principal';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { regenerateSchema, resumeSchema, sendMessageSchema, stopSchema } from './chat.schemas';
import { ReplyRelay } from './reply-relay';
import { type ChatSocket, SocketSessions } from './socket-sessions';
import type { TurnSink } from './turn-sink';
import { RepliesService } from './replies.service';
import { type ReplyInProgress, TurnService, type TurnAck } from './turn.service';

type AckOrError = TurnAck | { error: { code: string; message: string; details?: unknown } };

/** socket.io namespace `/chat`: the access token travels in the handshake `auth.token`. */
@WebSocketGateway({ namespace: '/chat', cors: { origin: true } })
export class ChatGateway implements OnGatewayInit {
  private readonly logger = new Logger(ChatGateway.name);
  readonly sendSchema;
  /** The events' schemas behind the text policy, built once (a zod pipeline costs more to build than to run). */
  private readonly checked;

  constructor(
    private readonly turns: TurnService,
    private readonly replies: RepliesService,
    private readonly socketSessions: SocketSessions,
    private readonly relay: ReplyRelay,
    @Inject(GATEWAY_ENV) env: GatewayEnv,
  ) {
    this.sendSchema = sendMessageSchema(env.MAX_MESSAGE_CHARS);
    this.checked = {
      send: withStorableText(this.sendSchema),
      regenerate: withStorableText(regenerateSchema),
    };
  }

  /**
   * Authenticates in the handshake; open sockets follow their account (SocketSessions); stops and resumes reach
   * replies streaming in other gateway processes (ReplyRelay).
   */
  afterInit(namespace: Namespace): void {
    this.socketSessions.attach(namespace);
    this.relay.attach(namespace);
  }

  @SubscribeMessage('message:send')
  @ApiEvent({
    payload: (gateway: ChatGateway) => gateway.sendSchema,
    summary: 'Sends a message and starts a turn',
  })
  send(@ConnectedSocket() client: ChatSocket, @MessageBody() body: unknown): Promise<AckOrError> {
    return this.command(client, 'message:send', this.checked.send, body, (input, userId) =>
      this.turns.send(userId, input, socketSink(client)),
    );
  }

  @SubscribeMessage('message:regenerate')
  @ApiEvent({ payload: regenerateSchema, summary: 'Starts a new reply in place of this one' })
  regenerate(@ConnectedSocket() client: ChatSocket, @MessageBody() body: unknown): Promise<AckOrError> {
    return this.command(client, 'message:regenerate', this.checked.regenerate, body, (input, userId) =>
      this.turns.regenerate(userId, input.replyId, socketSink(client)),
    );
  }

  /**
   * Validates a client event and starts the turn; every failure is both the ack's `error` and a `message:error`
   * carrying the ids the client sent, so a client never waits on a turn that will not come.
   */
  private async command<S extends z.ZodType>(
    client: ChatSocket,
    name: string,
    schema: S,
    body: unknown,
    run: (input: z.infer<S>, userId: string) => Promise<TurnAck>,
  ): Promise<AckOrError> {
    const ids = pickIds(body);
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const error = {
        code: 'validation_failed',
        message: `${name} is invalid`,
        details: validationDetails(parsed.error),
      };
      client.emit('message:error', { ...ids, ...error, retryable: false });
      return { error };
    }
    try {
      // The socket event is the turn's entry, as an HTTP request is for the REST and OpenAI routes.
      return await traced(`socket.io ${name}`, { kind: SpanKind.SERVER }, () =>
        run(parsed.data, principalOf(client).userId),
      );
    } catch (error) {
      const failure = describe(error);
      if (failure.code === 'internal') this.logger.error(error);
      client.emit('message:error', { ...ids, ...failure });
      return { error: { code: failure.code, message: failure.message } };
    }
  }

  @SubscribeMessage('message:resume')
  @ApiEvent({
    payload: resumeSchema,
    summary:
      'After a reconnect or a reload: the replies still streaming in this conversation, with their text so far ' +
      '(deltas up to `index`); the later deltas follow as usual',
  })
  async resume(
    @ConnectedSocket() client: ChatSocket,
    @MessageBody() body: unknown,
  ): Promise<{ replies: ReplyInProgress[] } | { error: { code: string; message: string } }> {
    const parsed = resumeSchema.safeParse(body);
    if (!parsed.success) {
      return { error: { code: 'validation_failed', message: 'message:resume is invalid' } };
    }
    try {
      const replies = await this.replies.resume(
        principalOf(client).userId,
        parsed.data.conversationId,
        socketSink(client),
      );
      return { replies };
    } catch (error) {
      const { code, message } = describe(error);
      if (code === 'internal') this.logger.error(error);
      return { error: { code, message } };
    }
  }

  @SubscribeMessage('message:stop')
  @ApiEvent({ payload: stopSchema, summary: 'Stops a reply that is streaming' })
  async stop(
    @ConnectedSocket() client: ChatSocket,
    @MessageBody() body: unknown,
  ): Promise<{ stopped: boolean }> {
    const parsed = stopSchema.safeParse(body);
    if (!parsed.success) return { stopped: false };
    return { stopped: await this.replies.stop(principalOf(client).userId, parsed.data.replyId) };
  }
}

function socketSink(client: Socket): TurnSink {
  return {
    key: client.id,
    delta: (event) => client.emit('message:delta', event),
    done: (event) => client.emit('message:done', event),
    error: (event) => client.emit('message:error', event),
  };
}

/** HTTP-style errors (404 for someone else's conversation, ...) in the socket error shape. */
function describe(error: unknown): {
  code: string;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
} {
  if (error instanceof RetryAfterException) {
    return {
      code: error.code,
      message: error.message,
      retryable: true,
      retryAfterMs: error.retryAfterSeconds * 1_000,
    };
  }
  if (error instanceof HttpException) {
    const body = error.getResponse() as { error?: { code?: string; message?: string } };
    return {
      code: body.error?.code ?? 'error',
      message: body.error?.message ?? error.message,
      retryable: error.getStatus() >= 500 || error.getStatus() === 429,
    };
  }
  return { code: 'internal', message: 'Something went wrong; try again', retryable: true };
}

/** Set by the handshake middleware for every connected socket. */
function principalOf(client: ChatSocket): Principal {
  const principal = client.data.principal;
  if (!principal) throw new Error('socket without a principal');
  return principal;
}

/** The ids a client sent, echoed in errors so it can match them to its pending request. */
function pickIds(body: unknown): { conversationId?: string; replyId?: string } {
  const { conversationId, replyId } = (body ?? {}) as Record<string, unknown>;
  return {
    ...(typeof conversationId === 'string' && { conversationId }),
    ...(typeof replyId === 'string' && { replyId }),
  };
}
