import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ACCOUNT_CHANGES_CHANNEL, PgListener } from '@echoloop/platform';
import { PinoLogger } from 'nestjs-pino';
import { GATEWAY_ENV, type GatewayEnv } from '../env';

/** Said instead of an account id when any account may have changed (notifications were missed). */
export const EVERY_ACCOUNT = '*';
export type AccountChangeListener = (userId: string) => void | Promise<void>;

/**
 * Whatever changes an account's power (roles, disabled, deleted, signed in or out) publishes here after its
 * transaction commits, so cached session states and open sockets follow at once. Other replicas hear of it through
 * PostgreSQL (AccountChangesFromDatabase).
 */
@Injectable()
export class AccountChanges {
  private readonly listeners = new Set<AccountChangeListener>();

  subscribe(listener: AccountChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async publish(userId: string): Promise<void> {
    await Promise.all([...this.listeners].map(async (listener) => listener(userId)));
  }
}

/**
 * Brings the changes committed by other processes (another replica, `./echoloop admin`) into this one: they notify
 * ACCOUNT_CHANGES_CHANNEL inside their transaction. After a lost connection everything counts as changed.
 */
@Injectable()
export class AccountChangesFromDatabase implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly listener: PgListener;

  constructor(changes: AccountChanges, @Inject(GATEWAY_ENV) env: GatewayEnv, logger: PinoLogger) {
    const publish = (userId: string) =>
      void changes.publish(userId).catch((error: unknown) => {
        logger.error({ err: error }, 'account change listener failed');
      });
    this.listener = new PgListener({
      connectionString: env.DATABASE_URL,
      channel: ACCOUNT_CHANGES_CHANNEL,
      applicationName: 'chat-gateway-account-changes',
      onNotification: (userId) => publish(userId),
      onListening: () => publish(EVERY_ACCOUNT),
      logger: logger.logger,
    });
  }

  onApplicationBootstrap(): void {
    this.listener.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.listener.stop();
  }
}
