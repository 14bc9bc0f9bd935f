import { ZodValidationPipe } from '@echoloop/platform';
import {
  Body,
  Controller,
  Headers,
  HttpException,
  Inject,
  Param,
  ParseUUIDPipe,
  Post,
  Res,
} from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { sendMessageSchema } from './chat.schemas';
import type { TurnDone, TurnFailure } from './turn-sink';
import { TurnService } from './turn.service';

/** Same turn as `message:send`, over HTTP: SSE when the client asks for `text/event-stream`, JSON otherwise. */
@Controller('v1/conversations/:conversationId/messages')
export class MessagesController {
  private readonly bodySchema;

  constructor(
    private readonly turns: TurnService,
    @Inject(GATEWAY_ENV) env: GatewayEnv,
  ) {
    this.bodySchema = sendMessageSchema(env.MAX_MESSAGE_CHARS).omit({ conversationId: true });
  }

  @Post()
  async send(
    @CurrentPrincipal() principal: Principal,
    @Param('conversationId', ParseUUIDPipe) conversationId: string,
    @Body() raw: unknown,
    @Headers('accept') accept: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const body = new ZodValidationPipe(this.bodySchema).transform(raw) as z.infer<typeof this.bodySchema>;
    const input = { ...body, conversationId };
    if (accept?.includes('text/event-stream')) return this.stream(principal.userId, input, res);

    let settle!: (outcome: { done?: TurnDone; failure?: TurnFailure }) => void;
    const outcome = new Promise<{ done?: TurnDone; failure?: TurnFailure }>((resolve) => (settle = resolve));
    const ids = await this.turns.send(principal.userId, input, {
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

  private async stream(
    userId: string,
    input: Parameters<TurnService['send']>[1],
    res: Response,
  ): Promise<void> {
    const write = (event: string, data: unknown) =>
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    let ids;
    try {
      ids = await this.turns.send(userId, input, {
        delta: (event) => write('message:delta', event),
        done: (event) => {
          write('message:done', event);
          res.end();
        },
        error: (event) => {
          write('message:error', event);
          res.end();
        },
      });
    } catch (error) {
      if (error instanceof HttpException) {
        res.status(error.getStatus()).json(error.getResponse());
        return;
      }
      throw error;
    }
    res.status(200).setHeader('Content-Type', 'text/event-stream').setHeader('Cache-Control', 'no-cache');
    res.flushHeaders();
    write('message:ack', ids);
    res.on('close', () => {
      if (!res.writableEnded) this.turns.stop(userId, ids.replyId);
    });
  }
}
