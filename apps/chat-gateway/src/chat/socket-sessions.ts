import { Injectable, Logger } from '@nestjs/common';
import type { Namespace, Socket } from 'socket.io';
import { AccountChanges, EVERY_ACCOUNT } from '../auth/account-changes';
import { bearerToken } from '../auth/auth.guard';
import type { Principal } from '../auth/principal';
import { SessionStates } from '../auth/session-states';

export type ChatSocket = Socket & { data: { principal?: Principal } };

export const userRoom = (userId: string) => `user:${userId}`;

/**
 * Sockets that follow their account: a bad token never gets a connection (the client sees connect_error), and when
 * an account changes (disabled, deleted, demoted, signed out) its open sockets are checked again at once: those
 * whose session has ended get `session:ended` and are disconnected, the others carry the current roles.
 */
@Injectable()
export class SocketSessions {
  private readonly logger = new Logger(SocketSessions.name);

  constructor(
    private readonly sessions: SessionStates,
    private readonly changes: AccountChanges,
  ) {}

  attach(namespace: Namespace): void {
    namespace.use((socket: ChatSocket, next) => {
      const auth = socket.handshake.auth as { token?: unknown };
      const raw =
        typeof auth.token === 'string' ? auth.token : bearerToken(socket.handshake.headers.authorization);
      void (raw ? this.sessions.authenticate(raw) : Promise.resolve(undefined)).then(
        (principal) => {
          if (!principal) return next(refusal());
          socket.data.principal = principal;
          next();
        },
        // The account could not be read (database down): a retryable refusal, not "sign in again".
        () =>
          next(
            Object.assign(new Error('unavailable'), {
              data: { code: 'unavailable', message: 'Try again in a moment', retryable: true },
            }),
          ),
      );
    });
    namespace.on('connection', (socket: ChatSocket) => {
      if (socket.data.principal) void socket.join(userRoom(socket.data.principal.userId));
    });
    this.changes.subscribe((userId) => this.recheck(namespace, userId));
  }

  private async recheck(namespace: Namespace, userId: string): Promise<void> {
    const ids =
      userId === EVERY_ACCOUNT
        ? namespace.sockets.keys()
        : (namespace.adapter.rooms.get(userRoom(userId)) ?? []);
    const open = [...ids].flatMap((id) => namespace.sockets.get(id) ?? []) as ChatSocket[];
    await Promise.all(
      open.map(async (socket) => {
        const current = socket.data.principal;
        if (!current?.sessionId) return;
        const principal = await this.sessions
          .principal({ userId: current.userId, sessionId: current.sessionId })
          .catch((error: unknown) => {
            // The account could not be read (database down): keep the socket rather than drop everyone.
            this.logger.warn({ err: error }, 'socket session recheck failed');
            return current;
          });
        if (principal) {
          socket.data.principal = principal;
          return;
        }
        socket.emit('session:ended', {
          code: 'session_ended',
          message: 'Your session has ended; sign in again',
        });
        socket.disconnect(true);
      }),
    );
  }
}

function refusal(): Error {
  return Object.assign(new Error('unauthorized'), {
    data: { code: 'unauthorized', message: 'A valid access token is required', retryable: false },
  });
}
