import { DEFAULT_REWARD_CONFIG, type RewardConfig } from '@echoloop/rewards';
import type { ChatMessage } from '@echoloop/vocabulary';
import { type SentientProfile } from './profile';
import {
  type EpisodeEndReason,
  type EpisodeError,
  openSession,
  respond,
  type SimulatorDeps,
  type SimulatorOptions,
  type SimulatorSession,
  type TurnTrace,
} from './simulator';
import { episodeReward } from './state';

export interface EpisodeDeps extends SimulatorDeps {
  /** The model under test. It receives only the chat history (and the optional system prompt), never the profile. */
  policy(history: ChatMessage[]): Promise<string>;
}

export interface EpisodeOptions extends SimulatorOptions {
  /** Prepended to the policy's history as a system message. */
  policySystemPrompt?: string;
}

export interface EpisodeResult {
  profileId: string;
  mode: SimulatorSession['mode'];
  /** Completed policy turns. */
  turns: number;
  startScore: number;
  finalScore: number;
  endReason: EpisodeEndReason;
  reward: number;
  /** The opening user message (fixed, or written by the actor). */
  opener: string;
  trace: TurnTrace[];
  /** The policy-side dialogue: user and assistant messages only. */
  history: ChatMessage[];
  error?: EpisodeError;
  epm?: SimulatorSession['epm'];
}

/** What a finished (or errored) session amounts to, with RLVER's sparse reward. */
export function episodeResult(
  session: SimulatorSession,
  config: RewardConfig = DEFAULT_REWARD_CONFIG,
): EpisodeResult {
  return {
    profileId: session.profileId,
    mode: session.mode,
    turns: session.trace.length,
    startScore: session.startScore,
    finalScore: session.state.score,
    endReason: session.ended ?? 'error',
    reward: episodeReward(session.state.score, config),
    opener: session.opener,
    trace: session.trace,
    history: session.history,
    ...(session.error && { error: session.error }),
    ...(session.epm && { epm: session.epm }),
  };
}

/**
 * One simulated conversation: the user opens, then the policy and the simulated user take turns until the mode's
 * stop rule. Transport errors from `deps` propagate; unparseable simulator output ends the episode as 'error'.
 */
export async function runEpisode(
  profile: SentientProfile,
  deps: EpisodeDeps,
  options: EpisodeOptions = {},
): Promise<EpisodeResult> {
  const system: ChatMessage[] = options.policySystemPrompt
    ? [{ role: 'system', content: options.policySystemPrompt }]
    : [];
  let session = await openSession(profile, deps, options);
  while (!session.ended) {
    const policyRaw = await deps.policy([...system, ...session.history].map((message) => ({ ...message })));
    session = await respond(session, profile, policyRaw, deps, options.config);
  }
  return episodeResult(session, options.config);
}
