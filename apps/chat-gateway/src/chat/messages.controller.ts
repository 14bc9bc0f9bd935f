import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { turnResult } from '@echoloop/vocabulary';
import { Body, Controller, Headers, Inject, Param, ParseUUIDPipe, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { sendMessageSchema } from './chat.schemas';
import { RepliesService } from './replies.service';
import { respondWithTurn } from './turn-response';
import { TurnService } from './turn.service';

/** Same turn as `message:send`, over HTTP: SSE when the client asks for `text/event-stream`, JSON otherwise. */
@Controller('v1/conversations/:conversationId/messages')
export class MessagesController {
  private readonly bodyPipe;

  constructor(
    private readonly turns: TurnService,
    private readonly replies: RepliesService,
    @Inject(GATEWAY_ENV) env: GatewayEnv,
  ) {
    this.bodyPipe = new ZodValidationPipe(
      sendMessageSchema(env.MAX_MESSAGE_CHARS).omit({ conversationId: true }),
    );
  }

  @Post()
  @ApiDoc({
    summary: 'Sends a message and answers with the reply once complete (or streams it as SSE when asked)',
    response: turnResult,
  })
  send(
    @CurrentPrincipal() principal: Principal,
    @Param('conversationId', ParseUUIDPipe) conversationId: string,
    @Body() raw: unknown,
    @Headers('accept') accept: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const input = { ...this.bodyPipe.transform(raw), conversationId };
    return respondWithTurn(res, accept, this.replies, principal.userId, (sink) =>
      this.turns.send(principal.userId, input, sink),
    );
  }
}
