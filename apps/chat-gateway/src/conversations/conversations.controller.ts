import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import {
  createConversationSchema,
  pageQuerySchema,
  type CreateConversationInput,
  type PageQuery,
} from './conversation.schemas';
import {
  conversationCreatedResponse,
  conversationListResponse,
  messagePageResponse,
} from './conversation.responses';
import { ConversationsService } from './conversations.service';

@Controller('v1/conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Post()
  @ApiDoc({
    summary: 'Starts a conversation with a character, opening with one of its greetings',
    response: conversationCreatedResponse,
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(createConversationSchema)) input: CreateConversationInput,
  ) {
    return this.conversations.create(principal.userId, input.characterId, input.greetingIndex);
  }

  @Get()
  @ApiDoc({ summary: 'Your conversations, most recent first', response: conversationListResponse })
  list(@CurrentPrincipal() principal: Principal) {
    return this.conversations.list(principal.userId);
  }

  @Get(':id/messages')
  @ApiDoc({ summary: 'A page of messages, oldest first', response: messagePageResponse })
  messages(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Query(new ZodValidationPipe(pageQuerySchema)) page: PageQuery,
  ) {
    return this.conversations.messages(principal.userId, id, page);
  }

  @Delete(':id')
  @ApiDoc({ summary: 'Deletes a conversation and its messages' })
  @HttpCode(204)
  remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.conversations.remove(principal.userId, id);
  }
}
