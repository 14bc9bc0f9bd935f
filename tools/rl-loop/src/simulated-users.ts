import type { SentientProfile } from '@echoloop/sentient';
import type { SimulatorSessionView as SessionView, TurnResult as TurnReply } from '@echoloop/vocabulary';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { evalRunner, gateway } from './clients';

export interface Endpoints {
  gateway: string;
  evalRunner: string;
  apiKey: string;
  characterId: string;
  /** The database, where each new account is marked simulated before it says anything. */
  db: DataSource;
}

export interface UserOutcome {
  profileId: string;
  conversationId: string;
  /** How the user felt after each first-turn alternative; null where the simulator failed to judge it. */
  scores: [number | null, number | null];
  /** The alternative kept (0 or 1); none on a tie or a failed judgement. */
  kept: 0 | 1 | null;
  /** Replies the user got (the regeneration of the first not counted). */
  turns: number;
  /** The simulated user's emotion score at the start and after each reply it read. */
  trajectory: number[];
  /** Why the simulator ended the conversation (max_turns at the loop's cap); 'empty reply' when the companion sent one. */
  endReason: string;
}

/**
 * A new account, marked simulated (so its data never passes for a person's), that consented to training, with a
 * conversation open with the companion.
 */
export async function newUser(
  e: Endpoints,
  name: string,
): Promise<{ token: string; conversationId: string }> {
  const email = `loop-${randomUUID()}@example.com`;
  const { accessToken: token } = await gateway(e.gateway).call('post', '/v1/auth/register', {
    body: { email, password: 'correct horse battery', displayName: name },
  });
  await e.db.query(`UPDATE users SET simulated = true WHERE email = $1`, [email]);
  const user = gateway(e.gateway, { bearer: token });
  await user.call('patch', '/v1/me', { body: { trainingConsent: true } });
  const { id } = await user.call('post', '/v1/conversations', { body: { characterId: e.characterId } });
  return { token, conversationId: id };
}

export const sendMessage = (e: Endpoints, token: string, conversationId: string, content: string) =>
  gateway(e.gateway, { bearer: token }).call('post', '/v1/conversations/{conversationId}/messages', {
    path: { conversationId },
    body: { content, clientMessageId: randomUUID() },
  });

/** The simulated user's next state after `reply` as its answer to turn `turn`. */
const play = (e: Endpoints, session: SessionView, reply: string, turn: number) =>
  evalRunner(e.evalRunner, e.apiKey).call('post', '/v1/simulator/sessions/{id}/turns', {
    path: { id: session.id },
    body: { reply, turn },
  });

const openSession = (e: Endpoints, profileId: string, maxTurns: number) =>
  evalRunner(e.evalRunner, e.apiKey).call('post', '/v1/simulator/sessions', {
    body: { profileId, maxTurns },
  });

/**
 * One simulated user, a multi-turn conversation driven by the sentient simulator's emotion state. Turn 1: the
 * profile's opener through the gateway and one regeneration, each reply played to its own simulator session of the
 * same profile; the one that moved the user more is kept as a swipe and its session goes on. Then the user says
 * what the simulator makes them say next, until the simulator ends the conversation (a goodbye, an emotion at either
 * end) or `maxTurns` replies were taken.
 */
export async function simulateUser(
  e: Endpoints,
  profile: SentientProfile,
  maxTurns: number,
): Promise<UserOutcome> {
  const open = () => openSession(e, profile.id, maxTurns);
  const [first, second] = [await open(), await open()];
  const { token, conversationId } = await newUser(e, profile.persona.name);
  const a = await sendMessage(e, token, conversationId, first.userMessage);
  const user = gateway(e.gateway, { bearer: token });
  const b = await user.call('post', '/v1/messages/{id}/regenerate', { path: { id: a.replyId } });
  // An empty reply cannot be played: it is the worst the user could get.
  const playFirst = (session: SessionView, turn: TurnReply) =>
    turn.reply.content.trim() ? play(e, session, turn.reply.content, 1) : Promise.resolve(null);
  const judged = await Promise.all([playFirst(first, a), playFirst(second, b)]);
  // A simulator that could not read its own answer ended the session with 'error': it judged nothing.
  const scores = judged.map((s) => (s === null ? -Infinity : s.endReason === 'error' ? null : s.score)) as [
    number | null,
    number | null,
  ];
  const [sa, sb] = scores;
  const kept = sa === null || sb === null || sa === sb ? null : sa > sb ? 0 : 1;
  if (kept !== null) {
    await user.call('post', '/v1/messages/{id}/select', { path: { id: (kept === 0 ? a : b).replyId } });
  }
  let session = judged[kept ?? 0] ?? null;
  const trajectory = [first.score, ...(session ? [session.score] : [])];
  let turns = 1;
  // The simulator's session was opened with maxTurns: it ends the conversation at the cap itself.
  while (session && !session.done) {
    const next = await sendMessage(e, token, conversationId, session.userMessage);
    turns += 1;
    session = next.reply.content.trim() ? await play(e, session, next.reply.content, turns) : null;
    if (session) trajectory.push(session.score);
  }
  return {
    profileId: profile.id,
    conversationId,
    scores,
    kept,
    turns,
    trajectory,
    endReason: session?.endReason ?? 'empty reply',
  };
}

/** Runs `work` over `items`, `concurrency` at a time, in order of start. */
export async function pool<T, R>(
  items: T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
