import { progressReporter } from '@echoloop/platform';
import { waitFor } from '@echoloop/testing';
import type { DataSource } from 'typeorm';
import { say } from './output';

interface Counts {
  replies: number;
  labelled: number;
  swipesApplied: number;
}

async function counts(db: DataSource, conversations: string[], version: string): Promise<Counts> {
  const [row] = (await db.query(
    `SELECT
       (SELECT count(*) FROM messages WHERE conversation_id = ANY($2) AND role = 'assistant'
          AND parent_id IS NOT NULL)::int AS replies,
       (SELECT count(*) FROM reward_turns WHERE conversation_id = ANY($2)
          AND $1 = ANY(labelled_versions))::int AS labelled,
       (SELECT count(*) FROM reward_turns WHERE conversation_id = ANY($2)
          AND (signals->>'kept')::boolean)::int AS "swipesApplied"`,
    [version, conversations],
  )) as [Counts];
  return row;
}

/**
 * Until every reply to a user message (not the characters' greetings) in `users`' conversations is labelled by
 * `version`, and each swipe they made reached its turn's signals.
 */
export async function waitLabelled(
  db: DataSource,
  users: readonly { conversationId: string; kept: 0 | 1 | null }[],
  version = 'labeller-v1',
  timeoutMs = 1_800_000,
) {
  const conversations = users.map((u) => u.conversationId);
  const swipes = users.filter((u) => u.kept !== null).length;
  const progress = progressReporter('labelling', 'turns');
  const last = await waitFor(
    async () => {
      const c = await counts(db, conversations, version);
      progress.report(c.labelled, c.replies);
      return c.labelled >= c.replies && c.swipesApplied >= swipes && c;
    },
    { timeoutMs, intervalMs: 2_000, what: 'every turn to be labelled' },
  );
  progress.finish();
  say('labelling', `${last.labelled}/${last.replies} turns labelled, ${last.swipesApplied} swipes applied`);
  return last;
}
