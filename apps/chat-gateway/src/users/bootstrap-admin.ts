import { ensureBootstrapAdmin } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { GATEWAY_ENV, type GatewayEnv } from '../env';

/** BOOTSTRAP_ADMIN_EMAIL/PASSWORD: the first admin of a fresh install, created before the gateway listens. */
@Injectable()
export class BootstrapAdmin implements OnApplicationBootstrap {
  constructor(
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    @InjectDataSource() private readonly db: DataSource,
    private readonly logger: PinoLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { BOOTSTRAP_ADMIN_EMAIL: email, BOOTSTRAP_ADMIN_PASSWORD: password } = this.env;
    if (!email || !password) return;
    const { outcome, userId } = await ensureBootstrapAdmin(this.db, { email, password });
    if (outcome === 'created') this.logger.info({ userId }, 'bootstrap admin created');
    if (outcome === 'email_taken') {
      this.logger.warn('bootstrap admin not created: its email belongs to an account that is not an admin');
    }
  }
}
