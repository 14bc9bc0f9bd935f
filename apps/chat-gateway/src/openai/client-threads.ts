import type { ChatMessage } from '@echoloop/vocabulary';
import { Injectable, NotFoundException } from '@nestjs/common';
import type { Principal } from '../auth/principal';
import { TurnInputsCache } from '../conversations/turn-inputs-cache';
import { RepliesService } from '../chat/replies.service';
import { clientMessageId, type ClientHistory, readClientHistory, threadKey } from './client-history';
import { type ClientSettings, ClientThreadsRepository } from './client-threads.repository';
import { matchThread, type ThreadMove } from './thread-match';

/** What a client's request starts: a new user message in a conversation, or a new alternative of a reply. */
export type ClientTurn =
  | { kind: 'send'; conversationId: string; clientMessageId: string; content: string }
  | { kind: 'regenerate'; replyId: string };

/** What names the conversation when the client does: `X-Conversation-Id`, or `metadata.conversation_id`. */
export interface ClientRequest {
  model: string;
  messages: readonly (ChatMessage & { name?: string | undefined })[];
  conversationId?: string;
}

export const modelNotFound = (model: string) =>
  new NotFoundException({
    error: {
      code: 'model_not_found',
      message: `The model \`${model}\` does not exist: name a character (GET /v1/models) or \`default\``,
      details: [{ path: 'model', message: 'unknown character' }],
    },
  });

/**
 * Finds the conversation an OpenAI-compatible client's request continues. A client names it, or resends the whole
 * history: then the user's conversations that begin the same way are compared with it, newest first, and the one
 * whose transcript it continues is taken (a history equal to an earlier request's minus its answer is a swipe);
 * a history seen nowhere is a new conversation holding that past.
 */
@Injectable()
export class ClientThreads {
  constructor(
    private readonly repository: ClientThreadsRepository,
    private readonly replies: RepliesService,
    private readonly guesses: TurnInputsCache,
  ) {}

  /** The character a client's `model` names: its id, its name (any case), or `default` (the oldest). */
  async character(model: string): Promise<{ id: string; name: string }> {
    const found = await this.repository.characterNamed(model);
    if (!found) throw modelNotFound(model);
    return found;
  }

  async resolve(principal: Principal, request: ClientRequest): Promise<ClientTurn> {
    const history = readClientHistory(request.messages);
    const settings: ClientSettings = {
      clientName: principal.personalKey?.name ?? 'openai-compatible client',
      systemPrompt: history.system,
      personaGuidance: principal.personalKey?.personaGuidance ?? false,
      speakers: Object.keys(history.speakers).length ? history.speakers : null,
    };
    if (request.conversationId)
      return this.named(principal.userId, request.conversationId, history, settings);
    const character = await this.character(request.model);
    const key = threadKey(character.id, history);
    const found = await this.continued(principal.userId, key, history);
    if (found) {
      await this.keepSettings(found.conversationId, settings);
      return this.apply(principal.userId, found.conversationId, found.move, history);
    }
    const conversationId = await this.repository.newThread({
      ...settings,
      userId: principal.userId,
      characterId: character.id,
      title: titleOf(history),
      threadKey: key,
      past: pastOf(history),
    });
    return {
      kind: 'send',
      conversationId,
      clientMessageId: clientMessageId(history),
      content: history.message,
    };
  }

  /** A conversation the client names: the server holds its history, so a message the transcript lacks is sent. */
  private async named(
    userId: string,
    conversationId: string,
    history: ClientHistory,
    settings: ClientSettings,
  ): Promise<ClientTurn> {
    const conversation = await this.repository.owned(userId, conversationId);
    if (!conversation) {
      throw new NotFoundException({ error: { code: 'not_found', message: 'Conversation not found' } });
    }
    // One the web app started keeps its character's prompt; a client's follows the client's.
    if (conversation.clientThreadKey !== null) await this.keepSettings(conversationId, settings);
    const move = matchThread(
      await this.repository.transcript(conversationId),
      history.earlier,
      history.message,
    );
    return this.apply(userId, conversationId, move ?? { kind: 'send' }, history);
  }

  /** The first conversation the history continues exactly, else the first it continues with an edit. */
  private async continued(userId: string, key: string, history: ClientHistory) {
    let edited: { conversationId: string; move: ThreadMove } | undefined;
    for (const conversationId of await this.repository.candidates(userId, key)) {
      const move = matchThread(
        await this.repository.transcript(conversationId),
        history.earlier,
        history.message,
      );
      if (move && !(move.kind === 'send' && move.edit)) return { conversationId, move };
      if (move) edited ??= { conversationId, move };
    }
    return edited;
  }

  private async apply(
    userId: string,
    conversationId: string,
    move: ThreadMove,
    history: ClientHistory,
  ): Promise<ClientTurn> {
    if (move.kind === 'regenerate') return move;
    if (move.kind === 'resend') {
      return {
        kind: 'send',
        conversationId,
        clientMessageId: move.clientMessageId,
        content: history.message,
      };
    }
    if (move.select) await this.replies.select(userId, move.select);
    if (move.edit) await this.replies.edit(userId, move.edit.replyId, move.edit.content);
    return {
      kind: 'send',
      conversationId,
      clientMessageId: clientMessageId(history),
      content: history.message,
    };
  }

  /** The conversation follows the client's current name, prompt and persona choice. */
  private async keepSettings(conversationId: string, settings: ClientSettings): Promise<void> {
    if (await this.repository.updateClient(conversationId, settings)) this.guesses.forget(conversationId);
  }
}

/** The conversation's title, as the web app lists it: the client's first message, shortened. */
function titleOf(history: ClientHistory): string {
  const first = history.earlier.find((line) => line.role === 'user')?.content ?? history.message;
  const oneLine = first.replace(/\s+/g, ' ').trim();
  return oneLine.length > 60 ? `${oneLine.slice(0, 59)}…` : oneLine;
}

/** The dialogue the client brought, each user line with the id a later retry of it would carry. */
function pastOf(history: ClientHistory) {
  return history.earlier.map((line, index) => ({
    ...line,
    clientMessageId:
      line.role === 'user'
        ? clientMessageId({
            ...history,
            earlier: history.earlier.slice(0, index),
            message: line.content,
          })
        : null,
  }));
}
