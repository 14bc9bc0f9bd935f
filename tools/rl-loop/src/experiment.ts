import type { SentientProfile } from '@echoloop/sentient';
import { waitFor } from '@echoloop/testing';
import { gateway } from './clients';
import { waitLabelled } from './labelling';
import { say } from './output';
import { type Endpoints, pool, simulateUser, type UserOutcome } from './simulated-users';

export interface ExperimentOutcome {
  id: string;
  /** promoted / stopped: the experiment's own sequential test (or a guardrail) decided; undecided: the loop ended it. */
  decision: 'promoted' | 'stopped' | 'undecided';
  reason: string;
  /** Replies per checkpoint the routed users got. */
  arms: Record<string, number>;
  users: UserOutcome[];
}

/**
 * New simulated users hold their conversations while the candidate's experiment runs; once their turns are labelled
 * the gateway's reviewer applies the sequential test on the primary metric. A decision it makes stands; without one
 * after a few reviews the loop stops the experiment (the default stays), so the next generation starts clean.
 */
export async function runExperiment(
  e: Endpoints,
  experimentId: string,
  users: SentientProfile[],
  options: { maxTurns: number; concurrency: number; reviewMs: number },
): Promise<ExperimentOutcome> {
  const staff = gateway(e.gateway, { apiKey: e.apiKey });
  const experiment = { path: { id: experimentId } };
  let done = 0;
  const outcomes = await pool(users, options.concurrency, async (profile) => {
    const outcome = await simulateUser(e, profile, options.maxTurns);
    say('experiment', `routed users ${++done}/${users.length}`);
    return outcome;
  });
  await waitLabelled(e.db, outcomes);
  const get = () => staff.call('get', '/v1/experiments/{id}', experiment);
  const decided = await waitFor(
    async () => {
      const view = await get();
      return view.status !== 'running' && view;
    },
    { timeoutMs: options.reviewMs * 3, intervalMs: 1_000 },
  ).catch(() => undefined);
  if (!decided) {
    await staff.call('post', '/v1/experiments/{id}/stop', {
      ...experiment,
      body: { reason: `rl-loop: undecided after ${users.length} routed users` },
    });
  }
  // The audit log's last entry says who ended it and why (the decision's test, a guardrail, or the loop).
  const audit = await staff.call('get', '/v1/experiments/{id}/audit', experiment);
  const last = audit.items.at(-1);
  const rows = (await e.db.query(
    `SELECT checkpoint_id, count(*)::int AS n FROM messages
     WHERE conversation_id = ANY($1) AND role = 'assistant' AND parent_id IS NOT NULL
     GROUP BY checkpoint_id ORDER BY checkpoint_id`,
    [outcomes.map((o) => o.conversationId)],
  )) as { checkpoint_id: string | null; n: number }[];
  return {
    id: experimentId,
    decision: !decided ? 'undecided' : decided.status === 'promoted' ? 'promoted' : 'stopped',
    reason: String(last?.details['reason'] ?? decided?.stopReason ?? last?.action ?? ''),
    arms: Object.fromEntries(rows.map((r) => [r.checkpoint_id ?? 'none', r.n])),
    users: outcomes,
  };
}
