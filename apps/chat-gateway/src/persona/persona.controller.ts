import { ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Delete, Get, HttpCode, Patch } from '@nestjs/common';
import { z } from 'zod';
import { CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { PersonaService } from './persona.service';

const settingsSchema = z.object({ inferenceEnabled: z.boolean() }).strict();

/** The user's own inferred personality: visible with its evidence, resettable, and optional. */
@Controller('v1/me/profile')
export class PersonaController {
  constructor(private readonly persona: PersonaService) {}

  @Get()
  view(@CurrentPrincipal() principal: Principal) {
    return this.persona.view(principal.userId);
  }

  @Delete()
  @HttpCode(204)
  reset(@CurrentPrincipal() principal: Principal): Promise<void> {
    return this.persona.reset(principal.userId);
  }

  @Patch()
  async settings(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(settingsSchema)) input: z.infer<typeof settingsSchema>,
  ) {
    await this.persona.setInference(principal.userId, input.inferenceEnabled);
    return this.persona.view(principal.userId);
  }
}
