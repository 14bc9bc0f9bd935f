import {
  type ChatTurnText,
  deepExtractionDue,
  emptyProfile,
  extractFastFeatures,
  extractionWindow,
  fastFeaturesShifted,
  mergeObservations,
  type Observation,
  type UserProfile,
} from '@echoloop/persona';
import type { ScriptedConversation } from './dataset';

/** Reads a window of the conversation and reports observations (an LLM in production); null when it gave up. */
export type DeepExtractor = (window: ChatTurnText[]) => Promise<Observation[] | null>;

export interface ReplayStats {
  deepRuns: number;
  deepDropped: number;
}

const TURN_GAP_MS = 60_000;

/**
 * The gateway's inference, turn by turn, without the database: fast features on every user message, and a deep
 * extraction whenever the same schedule as the gateway's says it is due (when an extractor is given).
 */
export async function replayConversation(
  conversation: ScriptedConversation,
  deep: DeepExtractor | undefined,
  start = Date.parse('2026-11-01T09:00:00Z'),
): Promise<{ profile: UserProfile; stats: ReplayStats }> {
  let profile = emptyProfile();
  let sinceDeep = 0;
  const stats: ReplayStats = { deepRuns: 0, deepDropped: 0 };
  const messages: ChatTurnText[] = [];
  let previousAssistant: string | undefined;
  for (const [i, turn] of conversation.turns.entries()) {
    const at = start + i * TURN_GAP_MS;
    const user = {
      id: `${conversation.id}:u${i + 1}`,
      role: 'user' as const,
      content: turn.user,
      createdAt: new Date(at),
    };
    const observations = extractFastFeatures(
      { id: user.id, text: user.content, createdAt: user.createdAt },
      previousAssistant === undefined ? {} : { previousAssistantMessage: previousAssistant },
    );
    const before = profile;
    profile = mergeObservations(profile, observations, user.createdAt);
    sinceDeep += 1;
    const reply = {
      id: `${conversation.id}:a${i + 1}`,
      role: 'assistant' as const,
      content: turn.assistant,
      createdAt: new Date(at + 1_000),
    };
    messages.push(user, reply);
    previousAssistant = turn.assistant;
    if (deep && deepExtractionDue(sinceDeep, fastFeaturesShifted(before, profile))) {
      stats.deepRuns += 1;
      const found = await deep(extractionWindow(messages));
      if (found === null) stats.deepDropped += 1;
      else profile = mergeObservations(profile, found, reply.createdAt);
      sinceDeep = 0;
    }
  }
  return { profile, stats };
}
