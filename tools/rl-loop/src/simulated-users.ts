import type { SentientProfile } from '@echoloop/sentient';
import { randomUUID } from 'node:crypto';
import { call } from './http';

interface TurnReply {
  userMessageId: string;
  replyId: string;
  reply: { content: string; checkpointId: string };
}

interface SessionView {
  id: string;
  userMessage: string;
  score: number;
  turnScore: number;
}

export interface Endpoints {
  gateway: string;
  evalRunner: string;
  apiKey: string;
  characterId: string;
}

export interface UserOutcome {
  profileId: string;
  conversationId: string;
  scores: [number, number];
  /** The alternative kept (0 or 1); none on a tie. */
  kept: 0 | 1 | null;
}

/** A new account that consented to training, with a conversation open with the companion. */
export async function newUser(
  e: Endpoints,
  name: string,
): Promise<{ token: string; conversationId: string }> {
  const { accessToken: token } = await call<{ accessToken: string }>(e.gateway, 'POST', '/v1/auth/register', {
    body: { email: `loop-${randomUUID()}@example.com`, password: 'correct horse battery', displayName: name },
  });
  await call(e.gateway, 'PATCH', '/v1/me', { token, body: { trainingConsent: true } });
  const { id } = await call<{ id: string }>(e.gateway, 'POST', '/v1/conversations', {
    token,
    body: { characterId: e.characterId },
  });
  return { token, conversationId: id };
}

export const sendMessage = (e: Endpoints, token: string, conversationId: string, content: string) =>
  call<TurnReply>(e.gateway, 'POST', `/v1/conversations/${conversationId}/messages`, {
    token,
    body: { content, clientMessageId: randomUUID() },
  });

/** How the simulated user feels after `reply` as its first answer (an empty reply is the worst). */
async function judge(e: Endpoints, session: SessionView, reply: string): Promise<number> {
  if (!reply.trim()) return -Infinity;
  const next = await call<SessionView>(e.evalRunner, 'POST', `/v1/simulator/sessions/${session.id}/turns`, {
    key: e.apiKey,
    body: { reply, turn: 1 },
  });
  return next.score;
}

/**
 * One simulated user: the profile's opener through the gateway, one regeneration (two alternatives), each played to
 * its own simulator session of the same profile, and the alternative that moved the user more kept as a swipe.
 */
export async function simulateUser(e: Endpoints, profile: SentientProfile): Promise<UserOutcome> {
  const open = () =>
    call<SessionView>(e.evalRunner, 'POST', '/v1/simulator/sessions', {
      key: e.apiKey,
      body: { profileId: profile.id },
    });
  const first = await open();
  const { token, conversationId } = await newUser(e, profile.persona.name);
  const a = await sendMessage(e, token, conversationId, first.userMessage);
  const b = await call<TurnReply>(e.gateway, 'POST', `/v1/messages/${a.replyId}/regenerate`, { token });
  const second = await open();
  const scores: [number, number] = [
    await judge(e, first, a.reply.content),
    await judge(e, second, b.reply.content),
  ];
  const kept = scores[0] === scores[1] ? null : scores[0] > scores[1] ? 0 : 1;
  if (kept !== null) {
    const id = kept === 0 ? a.replyId : b.replyId;
    await call(e.gateway, 'POST', `/v1/messages/${id}/select`, { token });
  }
  return { profileId: profile.id, conversationId, scores, kept };
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
