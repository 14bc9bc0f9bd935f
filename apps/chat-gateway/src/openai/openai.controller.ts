import { buildModelList } from '@echoloop/openai-compat';
import { ApiDoc, CLOCK, type Clock, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Get, Headers, Inject, ParseUUIDPipe, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, PersonalKeys } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { RepliesService } from '../chat/replies.service';
import { TurnService } from '../chat/turn.service';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { ClientThreads } from './client-threads';
import { ClientThreadsRepository } from './client-threads.repository';
import { type ClientCompletion, clientCompletionSchema } from './completion.schemas';
import { respondAsOpenAi } from './completion-response';

/**
 * OpenAI's chat API for the clients people already use (SillyTavern, Open WebUI, the OpenAI SDKs), with a
 * personal key as the Bearer token. Each request is a turn of one of the user's conversations, so it is labelled,
 * exported, erased and put in experiments like any other: `model` names a character (or `default`), never an
 * adapter; the experiment router picks the checkpoint.
 */
@Controller('v1')
@PersonalKeys()
export class OpenAiController {
  private readonly bodyPipe: ZodValidationPipe<ReturnType<typeof clientCompletionSchema>>;

  constructor(
    private readonly threads: ClientThreads,
    private readonly repository: ClientThreadsRepository,
    private readonly turns: TurnService,
    private readonly replies: RepliesService,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(GATEWAY_ENV) env: GatewayEnv,
  ) {
    this.bodyPipe = new ZodValidationPipe(clientCompletionSchema(env.MAX_MESSAGE_CHARS));
  }

  @Get('models')
  @ApiDoc({ summary: 'The characters a client may chat with, as OpenAI models (`default` first)' })
  async models() {
    const characters = await this.repository.characters();
    const card = (id: string, created: Date, name: string) => ({
      id,
      object: 'model' as const,
      created: Math.floor(created.getTime() / 1000),
      owned_by: 'echoloop',
      root: null,
      parent: null,
      name,
    });
    const first = characters[0];
    return buildModelList([
      ...(first ? [card('default', first.createdAt, first.name)] : []),
      ...characters.map((c) => card(c.id, c.createdAt, c.name)),
    ]);
  }

  @Post('chat/completions')
  @ApiDoc({
    summary: "A reply from a character, in OpenAI's wire format (streamed with `stream: true`)",
    description:
      'The conversation is the one named by the `X-Conversation-Id` header or `metadata.conversation_id`, else ' +
      "the one whose history the request resends (a new one when none): a request equal to an earlier one's " +
      "minus its answer is a new alternative of that answer (a swipe). The response's `id` is the reply's id, " +
      'for `POST /v1/messages/{id}/feedback`.',
  })
  async complete(
    @CurrentPrincipal() principal: Principal,
    @Body() raw: unknown,
    @Headers('x-conversation-id') header: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const body: ClientCompletion = this.bodyPipe.transform(raw);
    const conversationId =
      header !== undefined
        ? await new ParseUUIDPipe().transform(header, { type: 'custom' })
        : (body.metadata?.conversation_id ?? undefined);
    const at = this.clock();
    const turn = await this.threads.resolve(principal, {
      model: body.model,
      messages: body.messages,
      ...(conversationId && { conversationId }),
    });
    const asked = {
      model: body.model,
      stream: body.stream === true,
      includeUsage:
        body.stream === true && body.stream_options != null && body.stream_options.include_usage !== false,
      at,
    };
    await respondAsOpenAi(res, asked, this.replies, principal.userId, (sink) => {
      if (turn.kind === 'regenerate') return this.turns.regenerate(principal.userId, turn.replyId, sink);
      const { conversationId: id, clientMessageId, content } = turn;
      return this.turns.send(principal.userId, { conversationId: id, clientMessageId, content }, sink);
    });
  }
}
