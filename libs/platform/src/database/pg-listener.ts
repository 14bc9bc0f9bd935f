import { Client } from 'pg';
import type { Logger } from 'pino';
import { Backoff } from '../scheduling/backoff';

export interface PgListenerOptions {
  connectionString: string;
  channel: string;
  applicationName: string;
  /** A payload sent with `pg_notify(channel, payload)`, delivered once its transaction commits. */
  onNotification(payload: string): void;
  /**
   * After every (re)connection: notifications sent while disconnected are lost, so whoever caches must treat
   * everything as changed.
   */
  onListening(): void;
  logger: Logger;
  maxBackoffMs?: number;
}

/**
 * A dedicated connection that LISTENs on one channel and comes back by itself, with a doubling backoff, when
 * PostgreSQL restarts or the connection drops.
 */
export class PgListener {
  private client: Client | undefined;
  private stopped = false;
  private readonly backoff: Backoff;
  private retryTimer: NodeJS.Timeout | undefined;
  private listeningNow = false;

  constructor(private readonly options: PgListenerOptions) {
    this.backoff = new Backoff({ initialMs: 200, maxMs: options.maxBackoffMs ?? 5_000 });
  }

  /** True from LISTEN until the connection is known to be lost: notifications sent meanwhile arrive. */
  get listening(): boolean {
    return this.listeningNow;
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.listeningNow = false;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { connectionString, applicationName, channel } = this.options;
    const client = new Client({ connectionString, application_name: applicationName });
    this.client = client;
    let dropped = false;
    const drop = (error?: Error) => {
      if (dropped) return;
      dropped = true;
      this.listeningNow = false;
      if (this.client === client) this.client = undefined;
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      const retryInMs = this.backoff.next();
      this.options.logger.warn({ err: error, channel, retryInMs }, 'pg listener lost; will retry');
      this.retryTimer = setTimeout(() => void this.connect(), retryInMs);
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (message) => {
      if (message.channel === channel) this.options.onNotification(message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
      if (this.stopped || dropped) return;
      this.backoff.reset();
      this.listeningNow = true;
      this.options.onListening();
    } catch (error) {
      drop(error as Error);
    }
  }
}
