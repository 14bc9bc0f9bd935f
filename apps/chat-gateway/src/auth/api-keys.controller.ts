import {
  ApiDoc,
  apiKeyList,
  apiKeyWithSecret,
  ApiKeysService,
  createApiKeySchema,
  type CreateApiKeyInput,
  rotateApiKeySchema,
  type RotateApiKeyInput,
  ZodValidationPipe,
} from '@echoloop/platform';
import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { CurrentPrincipal, Roles } from './auth.decorators';
import type { Principal } from './principal';

/**
 * Service credentials, for admins signed in as people (API keys never mint or rotate keys), with no more power
 * than the admin holds. The secret is shown only in the answer to create and rotate.
 */
@Controller('v1/api-keys')
@Roles('admin')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @ApiDoc({
    summary: 'Mints a key; the answer holds its secret, shown only this once',
    response: apiKeyWithSecret,
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(createApiKeySchema)) input: CreateApiKeyInput,
  ) {
    return this.keys.mint(principal, input);
  }

  @Get()
  @ApiDoc({ summary: 'Every key, without secrets', response: apiKeyList })
  async list() {
    return { items: await this.keys.list() };
  }

  @Post(':id/rotate')
  @HttpCode(200)
  @ApiDoc({
    summary: 'A new secret for the key (shown only this once); the old one works for a grace period',
    response: apiKeyWithSecret,
  })
  rotate(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body(new ZodValidationPipe(rotateApiKeySchema)) input: RotateApiKeyInput,
  ) {
    return this.keys.rotate(principal, id, input);
  }

  @Delete(':id')
  @HttpCode(204)
  revoke(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.keys.revoke(id);
  }
}
