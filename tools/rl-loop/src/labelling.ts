import { progressReporter } from '@echoloop/platform';
import { waitFor } from '@echoloop/testing';
import type { DataSource } from 'typeorm';
import { say } from './output';

interface Counts {
  replies: number;
  labelled: number;
  swipesApplied: number;
}

async function counts(db: DataSource, version: string): Promise<Counts> {
  const [row] = (await db.query(
    `SELECT
       (SELECT count(*) FROM messages WHERE role = 'assistant' AND parent_id IS NOT NULL)::int AS replies,
       (SELECT count(*) FROM reward_turns WHERE $1 = ANY(labelled_versions))::int AS labelled,
       (SELECT count(*) FROM reward_turns WHERE (signals->>'kept')::boolean)::int AS "swipesApplied"`,
    [version],
  )) as [Counts];
  return row;
}

/** Until every reply to a user message (not the characters' greetings) is labelled by `version` and each of the `swipes` made reached its turn's signals. */
export async function waitLabelled(
  db: DataSource,
  swipes: number,
  version = 'labeller-v1',
  timeoutMs = 1_800_000,
) {
  const progress = progressReporter('labelling', 'turns');
  const last = await waitFor(
    async () => {
      const c = await counts(db, version);
      progress.report(c.labelled, c.replies);
      return c.labelled >= c.replies && c.swipesApplied >= swipes && c;
    },
    { timeoutMs, intervalMs: 2_000, what: 'every turn to be labelled' },
  );
  progress.finish();
  say('labelling', `${last.labelled}/${last.replies} turns labelled, ${last.swipesApplied} swipes applied`);
  return last;
}
