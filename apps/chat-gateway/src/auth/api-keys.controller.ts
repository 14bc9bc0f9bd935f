import { ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import type { z } from 'zod';
import { CurrentPrincipal, Roles } from './auth.decorators';
import { ApiKeysService, createApiKeySchema } from './api-keys.service';
import type { Principal } from './principal';

@Controller('v1/api-keys')
@Roles('admin')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  /** The response is the only time the key itself is shown. */
  @Post()
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(createApiKeySchema)) input: z.infer<typeof createApiKeySchema>,
  ) {
    return this.keys.create(input.name, input.roles, principal.userId);
  }

  @Get()
  async list() {
    return { items: await this.keys.list() };
  }

  @Delete(':id')
  @HttpCode(204)
  revoke(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.keys.revoke(id);
  }
}
