import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { turnResult } from '@echoloop/vocabulary';
import { Body, Controller, Headers, HttpCode, Param, ParseUUIDPipe, Patch, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, PersonalKeys } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { messageResponse } from '../conversations/conversation.responses';
import { messageView } from '../conversations/conversations.service';
import { editReplySchema, type EditReplyInput } from './chat.schemas';
import { feedbackResponse, feedbackSchema, FeedbackService, type FeedbackInput } from './feedback.service';
import { RepliesService } from './replies.service';
import { respondWithTurn } from './turn-response';
import { TurnService } from './turn.service';

/** What a user can do with a reply: regenerate it (a new swipe), keep one swipe, edit it, give feedback. */
@Controller('v1/messages/:id')
export class RepliesController {
  constructor(
    private readonly turns: TurnService,
    private readonly replies: RepliesService,
    private readonly feedback: FeedbackService,
  ) {}

  @Post('regenerate')
  @ApiDoc({ summary: 'A new alternative reply to the same message (a swipe)', response: turnResult })
  regenerate(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Headers('accept') accept: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    return respondWithTurn(res, accept, this.replies, principal.userId, (sink) =>
      this.turns.regenerate(principal.userId, id, sink),
    );
  }

  @Patch()
  @ApiDoc({
    summary: 'Edit a reply: the conversation continues from your text',
    description:
      "The model's text is kept (`edited.originalContent`) and the edit becomes a preference (your text over the " +
      "model's) in the datasets. Sending the model's text again takes the edit back. 409 while the reply streams.",
    response: messageResponse,
  })
  async edit(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body(new ZodValidationPipe(editReplySchema)) input: EditReplyInput,
  ) {
    return messageView(await this.replies.edit(principal.userId, id, input.content));
  }

  @Post('select')
  @HttpCode(204)
  select(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.replies.select(principal.userId, id);
  }

  @Post('feedback')
  @HttpCode(200)
  @PersonalKeys()
  @ApiDoc({
    summary: 'Thumbs, stars, a comment or tags on a reply, at any time',
    description:
      'Thumbs (`up`/`down`) and stars (1-5) are separate answers. A field left out keeps its value, `null` takes ' +
      "it back. Late feedback still moves the reply's reward and the experiment results.",
    response: feedbackResponse,
  })
  give(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body(new ZodValidationPipe(feedbackSchema)) input: FeedbackInput,
  ) {
    return this.feedback.record(principal.userId, id, input);
  }
}
