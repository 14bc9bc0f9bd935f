import type { Role } from '@echoloop/persistence';

/** Who is calling: a user (access token, within a session) or a service (API key). */
export interface Principal {
  userId: string;
  roles: readonly Role[];
  kind: 'user' | 'service';
  /** The user's session: what logout ends. */
  sessionId?: string;
}
