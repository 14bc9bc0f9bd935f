import type { INestApplicationContext } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/postgres-adapter';
import { Pool } from 'pg';
import type { Namespace, Server, ServerOptions } from 'socket.io';

/**
 * socket.io across gateway processes and machines, through PostgreSQL (@socket.io/postgres-adapter): an emit to a
 * room or a socket id reaches it wherever it is connected, and `serverSideEmit` reaches every other process (a
 * stop or a resume for a reply streaming elsewhere). One small pool per process: a LISTEN connection that comes
 * back by itself, plus NOTIFY and the cleanup of `socket_io_attachments` (payloads over 8000 bytes).
 */
export class PostgresIoAdapter extends IoAdapter {
  private readonly logger = new Logger(PostgresIoAdapter.name);
  private readonly pool: Pool;

  constructor(app: INestApplicationContext, connectionString: string) {
    super(app);
    this.pool = new Pool({ connectionString, max: 4, application_name: 'chat-gateway-socket.io' });
    // An idle connection that drops (PostgreSQL restarted) is replaced on the next use.
    this.pool.on('error', (error) => this.logger.warn(`socket.io pool: ${error.message}`));
    // The adapter's LISTEN connection is checked out for good and listens only for `end` (then reconnects): its
    // `error` on a restart must not go unhandled, or it would end the process.
    this.pool.on('connect', (client) =>
      client.on('error', (error) => this.logger.warn(`socket.io listener: ${error.message}`)),
    );
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    const server = super.createIOServer(port, options) as Server;
    const perNamespace = createAdapter(this.pool, {
      // A process learns of the others from their heartbeats: a new one within a second, a dead one is forgotten
      // within 5 s (until then a stop or resume waits up to 5 s for its answer).
      heartbeatInterval: 1_000,
      heartbeatTimeout: 5_000,
      errorHandler: (error) => this.logger.warn(`socket.io adapter: ${error.message}`),
    });
    // socket.io calls it with `new`: a plain function returning the adapter, not an arrow function.
    server.adapter(function announced(namespace: Namespace) {
      const adapter = perNamespace(namespace);
      // socket.io 4.8.1 never calls init(), which announces this process (INITIAL_HEARTBEAT) so the others answer
      // with theirs; without it a process only learns of the others from their periodic heartbeats.
      void adapter.init();
      return adapter;
    } as unknown as Parameters<Server['adapter']>[0]);
    return server;
  }

  override async close(server: Server): Promise<void> {
    await super.close(server);
    await this.pool.end().catch(() => undefined);
  }
}
