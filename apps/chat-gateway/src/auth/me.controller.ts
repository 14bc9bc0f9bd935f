import { UserEntity } from '@echoloop/persistence';
import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Delete, Get, HttpCode, Inject, NotFoundException, Patch } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { z } from 'zod';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { CurrentPrincipal } from './auth.decorators';
import { AuthService } from './auth.service';
import type { Principal } from './principal';

export const patchMeSchema = z
  .object({ trainingConsent: z.boolean().describe('May your conversations be used to train models?') })
  .strict();

export const meResponse = z.object({
  id: z.uuid(),
  email: z.string(),
  displayName: z.string(),
  roles: z.array(z.string()),
  trainingConsent: z
    .boolean()
    .describe('In effect now: your choice, or the service default if you never chose'),
  trainingConsentChosen: z.boolean(),
  createdAt: z.iso.datetime(),
});

const gone = () =>
  new NotFoundException({ error: { code: 'not_found', message: 'Account no longer exists' } });

@Controller('v1/me')
export class MeController {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly auth: AuthService,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  @Get()
  @ApiDoc({ summary: 'Your account', response: meResponse })
  async me(@CurrentPrincipal() principal: Principal) {
    const user = await this.users.findOneBy({ id: principal.userId });
    if (!user) throw gone();
    return this.view(user);
  }

  @Patch()
  @ApiDoc({
    summary: 'Your settings: training consent',
    description:
      'Without consent your conversations never appear in any export or training dataset, from the next one on.',
    response: meResponse,
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(patchMeSchema)) patch: z.infer<typeof patchMeSchema>,
  ) {
    await this.users.update({ id: principal.userId }, { trainingConsent: patch.trainingConsent });
    return this.me(principal);
  }

  /**
   * Erasure: the account and, by cascade, its sessions and everything the user produced, and their events in the
   * outbox.
   */
  @Delete()
  @HttpCode(204)
  erase(@CurrentPrincipal() principal: Principal): Promise<void> {
    return this.auth.erase(principal);
  }

  private view(user: UserEntity) {
    return {
      id: user.id,
      email: user.email,
      displayName: user.displayName,
      roles: user.roles,
      trainingConsent: user.trainingConsent ?? this.env.TRAINING_CONSENT_DEFAULT,
      trainingConsentChosen: user.trainingConsent !== null,
      createdAt: user.createdAt,
    };
  }
}
