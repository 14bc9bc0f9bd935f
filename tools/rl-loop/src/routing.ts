import type { SentientProfile } from '@echoloop/sentient';
import type { DataSource } from 'typeorm';
import { say } from './output';
import { type Endpoints, newUser, pool, sendMessage } from './simulated-users';

/** New users each say one thing; the arm each landed on is the checkpoint stored with the reply (not the greeting). */
export async function routeUsers(
  e: Endpoints,
  db: DataSource,
  profiles: SentientProfile[],
  users: number,
  concurrency: number,
): Promise<Record<string, number>> {
  let done = 0;
  const conversations = await pool(
    Array.from({ length: users }, (_, i) => profiles[i % profiles.length] as SentientProfile),
    concurrency,
    async (profile) => {
      const { token, conversationId } = await newUser(e, profile.persona.name);
      await sendMessage(
        e,
        token,
        conversationId,
        profile.firstMessage ?? `I keep thinking about ${profile.topic}.`,
      );
      say('routing', `users done ${++done}/${users}`);
      return conversationId;
    },
  );
  const rows = (await db.query(
    `SELECT checkpoint_id, count(*)::int AS n FROM messages
     WHERE conversation_id = ANY($1) AND role = 'assistant' AND parent_id IS NOT NULL
     GROUP BY checkpoint_id ORDER BY checkpoint_id`,
    [conversations],
  )) as { checkpoint_id: string | null; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.checkpoint_id ?? 'none', r.n]));
}
