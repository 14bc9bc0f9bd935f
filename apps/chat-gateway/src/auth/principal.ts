import type { Role } from '@echoloop/persistence';

/** Who is calling: a user (access token within a session, or their personal key) or a service (API key). */
export interface Principal {
  userId: string;
  roles: readonly Role[];
  kind: 'user' | 'service';
  /** The user's session: what logout ends. */
  sessionId?: string;
  /** Set when a user acts through a personal API key (an OpenAI-compatible client) instead of a session. */
  personalKey?: { id: string; name: string; personaGuidance: boolean };
}
