import {
  DEFAULT_REWARD_CONFIG,
  type EmotionBucket,
  type Parsed,
  type RewardConfig,
  stripThink,
} from '@echoloop/rewards';
import { type ChatMessage } from './chat-message';
import { type ActorOutput, parseActorOutput, parseAnalyserOutput, type ParsedAnalysis } from './parse';
import { type SentientProfile } from './profile';
import { actorMessages, analyserMessages } from './prompts';
import {
  applyTurn,
  type EndReason,
  endCondition,
  episodeReward,
  initialState,
  SAGE_MAX_POLICY_TURNS,
} from './state';

export interface EpisodeDeps {
  /** The model under test. It receives only the chat history (and the optional system prompt), never the profile. */
  policy(history: ChatMessage[]): Promise<string>;
  analyser(messages: ChatMessage[]): Promise<string>;
  actor(messages: ChatMessage[]): Promise<string>;
}

export interface EpisodeOptions {
  /** 40 for SAGE evaluation (default), 30 for RLVER-style training. */
  startScore?: number;
  maxPolicyTurns?: number;
  /** Extra tries after an unparseable simulator answer before the episode ends as 'error'. */
  parseRetries?: number;
  /** Prepended to the policy's history as a system message. */
  policySystemPrompt?: string;
  config?: RewardConfig;
}

export interface TurnTrace {
  turn: number;
  /** The policy's output as returned, think text included. */
  policyRaw: string;
  /** What was stored and shown to the simulator: think text removed. */
  policyReply: string;
  analyser: { raw: string; parsed: ParsedAnalysis };
  delta: number;
  score: number;
  bucket: EmotionBucket;
  actor: { raw: string; parsed: ActorOutput };
  userMessage: string;
  goodbye: boolean;
}

export interface EpisodeError {
  /** The turn it happened in; 0 for the opener. */
  turn: number;
  call: 'analyser' | 'actor';
  attempts: { raw: string; problem: string; detail: string }[];
}

export interface EpisodeResult {
  profileId: string;
  /** Completed policy turns. */
  turns: number;
  finalScore: number;
  endReason: EndReason | 'error';
  reward: number;
  /** The opening user message (fixed, or written by the actor). */
  opener: string;
  trace: TurnTrace[];
  /** The policy-side dialogue: user and assistant messages only. */
  history: ChatMessage[];
  error?: EpisodeError;
}

class SimulatorError extends Error {
  constructor(readonly detail: EpisodeError) {
    super(`${detail.call} output unparseable in turn ${detail.turn}`);
  }
}

async function callParsed<T>(
  call: (messages: ChatMessage[]) => Promise<string>,
  messages: ChatMessage[],
  parse: (raw: string) => Parsed<T>,
  tries: number,
  where: Omit<EpisodeError, 'attempts'>,
): Promise<{ raw: string; parsed: T }> {
  const attempts: EpisodeError['attempts'] = [];
  for (let attempt = 0; attempt < tries; attempt++) {
    const raw = await call(messages);
    const parsed = parse(raw);
    if (parsed.ok) return { raw, parsed: parsed.value };
    attempts.push({ raw, problem: parsed.problem, detail: parsed.detail });
  }
  throw new SimulatorError({ ...where, attempts });
}

/**
 * One simulated conversation (§1.2): the user opens, then each turn the policy replies (think text stripped), the
 * analyser moves the score, the actor writes the next user message from the emotion bucket, and the SAGE stop rule
 * is checked. Transport errors from `deps` propagate; unparseable simulator output ends the episode as 'error'.
 */
export async function runEpisode(
  profile: SentientProfile,
  deps: EpisodeDeps,
  options: EpisodeOptions = {},
): Promise<EpisodeResult> {
  const config = options.config ?? DEFAULT_REWARD_CONFIG;
  const maxPolicyTurns = options.maxPolicyTurns ?? SAGE_MAX_POLICY_TURNS;
  const tries = 1 + (options.parseRetries ?? 1);
  const system: ChatMessage[] = options.policySystemPrompt
    ? [{ role: 'system', content: options.policySystemPrompt }]
    : [];
  let state = initialState(options.startScore ?? config.liveEmotion.startScore);
  const history: ChatMessage[] = [];
  const trace: TurnTrace[] = [];
  const result = (
    endReason: EpisodeResult['endReason'],
    opener: string,
    error?: EpisodeError,
  ): EpisodeResult => ({
    profileId: profile.id,
    turns: trace.length,
    finalScore: state.score,
    endReason,
    reward: episodeReward(state.score, config),
    opener,
    trace,
    history,
    ...(error ? { error } : {}),
  });

  let opener = profile.firstMessage ?? '';
  try {
    if (!opener) {
      const messages = actorMessages({ profile, bucket: state.bucket, history: [] });
      opener = (await callParsed(deps.actor, messages, parseActorOutput, tries, { turn: 0, call: 'actor' }))
        .parsed.response;
    }
    history.push({ role: 'user', content: opener });

    for (let turn = 1; ; turn++) {
      const policyRaw = await deps.policy([...system, ...history].map((message) => ({ ...message })));
      const policyReply = stripThink(policyRaw).trim();
      history.push({ role: 'assistant', content: policyReply });

      const analyser = await callParsed(
        deps.analyser,
        analyserMessages({ profile, score: state.score, history, maxDelta: config.liveEmotion.maxDelta }),
        (raw) => parseAnalyserOutput(raw, config),
        tries,
        { turn, call: 'analyser' },
      );
      state = applyTurn(state, analyser.parsed.change, config);

      const actor = await callParsed(
        deps.actor,
        actorMessages({ profile, bucket: state.bucket, history, analysis: analyser.parsed }),
        parseActorOutput,
        tries,
        { turn, call: 'actor' },
      );
      const userMessage = actor.parsed.response;
      history.push({ role: 'user', content: userMessage });
      trace.push({
        turn,
        policyRaw,
        policyReply,
        analyser,
        delta: analyser.parsed.change,
        score: state.score,
        bucket: state.bucket,
        actor,
        userMessage,
        goodbye: actor.parsed.goodbye,
      });

      const end = endCondition(
        state,
        { goodbye: actor.parsed.goodbye, policyTurns: turn, maxPolicyTurns },
        config,
      );
      if (end) return result(end, opener);
    }
  } catch (error) {
    if (error instanceof SimulatorError) return result('error', opener, error.detail);
    throw error;
  }
}
