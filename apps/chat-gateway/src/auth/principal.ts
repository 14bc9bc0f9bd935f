import type { Role } from '@echoloop/persistence';

/** Who is calling: a user (JWT) or a service (API key). */
export interface Principal {
  userId: string;
  roles: readonly Role[];
  kind: 'user' | 'service';
}
