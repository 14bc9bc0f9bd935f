import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { UsersRepository } from './users.repository';

/** BOOTSTRAP_ADMIN_EMAIL/PASSWORD: the first admin of a fresh install, created before the gateway listens. */
@Injectable()
export class BootstrapAdmin implements OnApplicationBootstrap {
  constructor(
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly users: UsersRepository,
    private readonly logger: PinoLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { BOOTSTRAP_ADMIN_EMAIL: email, BOOTSTRAP_ADMIN_PASSWORD: password } = this.env;
    if (!email || !password) return;
    const { outcome, userId } = await this.users.ensureBootstrapAdmin(email, password);
    if (outcome === 'created') this.logger.info({ userId }, 'bootstrap admin created');
    if (outcome === 'email_taken') {
      this.logger.warn('bootstrap admin not created: its email belongs to an account that is not an admin');
    }
  }
}
