import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Delete, Get, HttpCode, Patch } from '@nestjs/common';
import { z } from 'zod';
import { CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { PersonaService } from './persona.service';

const settingsSchema = z.object({ inferenceEnabled: z.boolean() }).strict();

/** What the companion inferred about you: each field with its confidence now and the messages it came from. */
const profileView = z.object({
  inferenceEnabled: z.boolean(),
  fields: z.record(
    z.string(),
    z.object({
      value: z.unknown(),
      confidence: z.number().min(0).max(1),
      evidence: z.array(
        z.object({
          messageId: z.uuid(),
          text: z.string().nullable().describe('Null when that message was deleted'),
        }),
      ),
      updatedAt: z.iso.datetime(),
    }),
  ),
  updatedAt: z.iso.datetime().nullable(),
});

/** The user's own inferred personality: visible with its evidence, resettable, and optional. */
@Controller('v1/me/profile')
export class PersonaController {
  constructor(private readonly persona: PersonaService) {}

  @Get()
  @ApiDoc({ summary: 'What the companion thinks of you, with its evidence', response: profileView })
  view(@CurrentPrincipal() principal: Principal) {
    return this.persona.view(principal.userId);
  }

  @Delete()
  @HttpCode(204)
  reset(@CurrentPrincipal() principal: Principal): Promise<void> {
    return this.persona.reset(principal.userId);
  }

  @Patch()
  @ApiDoc({
    summary: 'Turns inference on or off (off also forgets what was inferred)',
    response: profileView,
  })
  async settings(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(settingsSchema)) input: z.infer<typeof settingsSchema>,
  ) {
    await this.persona.setInference(principal.userId, input.inferenceEnabled);
    return this.persona.view(principal.userId);
  }
}
