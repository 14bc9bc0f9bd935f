import {
  ApiDoc,
  ApiKeysService,
  createPersonalKeySchema,
  type CreatePersonalKeyInput,
  personalKeyList,
  personalKeyWithSecret,
  ZodValidationPipe,
} from '@echoloop/platform';
import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { CurrentPrincipal } from './auth.decorators';
import type { Principal } from './principal';

/**
 * A user's own API keys, for OpenAI-compatible clients (SillyTavern, Open WebUI, the OpenAI SDKs): each chats as
 * the user on `/v1/chat/completions` and gives feedback on replies, nothing else. Minted and revoked only from a
 * signed-in session (a key cannot mint keys); a key ends with its owner's account.
 */
@Controller('v1/me/api-keys')
export class PersonalKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @ApiDoc({
    summary:
      'A personal key for an OpenAI-compatible client; the answer holds its secret, shown only this once',
    response: personalKeyWithSecret,
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(createPersonalKeySchema)) input: CreatePersonalKeyInput,
  ) {
    return this.keys.mintPersonal(principal.userId, input);
  }

  @Get()
  @ApiDoc({ summary: 'Your personal keys, without secrets', response: personalKeyList })
  async list(@CurrentPrincipal() principal: Principal) {
    return { items: await this.keys.listPersonal(principal.userId) };
  }

  @Delete(':id')
  @HttpCode(204)
  revoke(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.keys.revokePersonal(principal.userId, id);
  }
}
