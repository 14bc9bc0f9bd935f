import { stripThink } from '@echoloop/vocabulary';
import { DEFAULT_REWARD_CONFIG, type Parsed, type RewardConfig } from '@echoloop/rewards';
import type { ChatMessage } from '@echoloop/vocabulary';
import { parseIedrOutput, parseTurnJudgeOutput, turnJudgeMessages } from './epm-judge';
import { advanceEpm, EPM_MAX_TURNS, EPM_MIN_TURNS, type EpmRecord, type EpmTurn, openEpm } from './epm-run';
import { type ActorOutput, parseActorOutput, parseAnalyserOutput, type ParsedAnalysis } from './parse';
import { type SentientProfile } from './profile';
import { actorMessages, analyserMessages } from './prompts';
import {
  applyTurn,
  type EndReason,
  endCondition,
  type EpisodeState,
  initialState,
  SAGE_MAX_POLICY_TURNS,
} from './state';

/** The simulated user's model calls; `judge` adds the EPM C/A/P vector (and is required in 'epm' mode). */
export interface SimulatorDeps {
  analyser(messages: ChatMessage[]): Promise<string>;
  actor(messages: ChatMessage[]): Promise<string>;
  /** The EPM judge: 'iedr' rates the starting deficit, 'turn' rates one reply's progress and harm. */
  judge?(messages: ChatMessage[], rubric: 'iedr' | 'turn'): Promise<string>;
}

export interface SimulatorOptions {
  /**
   * 'sage' (default): SAGE's stop rule, at most 10 policy turns. 'epm': EMPA's, ending on the C/A/P verdict
   * (success judged from turn 12), the goodbye flag or 45 turns; the emotion score is still tracked.
   */
  mode?: 'sage' | 'epm';
  /** 40 for SAGE evaluation (default), 30 for RLVER-style training. */
  startScore?: number;
  /** Defaults to 10 ('sage') or 45 ('epm'). */
  maxPolicyTurns?: number;
  /** Extra tries after an unparseable simulator answer before the episode ends as 'error'. */
  parseRetries?: number;
  config?: RewardConfig;
}

export type EpisodeEndReason = EndReason | 'epm_success' | 'epm_failure' | 'error';

export interface TurnTrace {
  turn: number;
  /** The policy's output as returned, think text included. */
  policyRaw: string;
  /** What was stored and shown to the simulator: think text removed. */
  policyReply: string;
  analyser: { raw: string; parsed: ParsedAnalysis };
  delta: number;
  score: number;
  bucket: EpisodeState['bucket'];
  actor: { raw: string; parsed: ActorOutput };
  userMessage: string;
  goodbye: boolean;
  epm?: EpmTurn;
}

export interface EpisodeError {
  /** The turn it happened in; 0 for the opening. */
  turn: number;
  call: 'analyser' | 'actor' | 'judge';
  attempts: { raw: string; problem: string; detail: string }[];
}

/**
 * One simulated user's conversation so far, as plain data: it can be stored between turns and resumed by another
 * process, which is how RL rollouts drive the simulator over HTTP one reply at a time.
 */
export interface SimulatorSession {
  profileId: string;
  mode: 'sage' | 'epm';
  startScore: number;
  maxPolicyTurns: number;
  tries: number;
  state: EpisodeState;
  opener: string;
  /** The policy-side dialogue: user and assistant messages only. */
  history: ChatMessage[];
  trace: TurnTrace[];
  /** Null while the user is still talking. */
  ended: EpisodeEndReason | null;
  error?: EpisodeError;
  epm?: EpmRecord;
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
    let raw: string;
    try {
      raw = await call(messages);
    } catch (error) {
      // A request the model server refuses as invalid (400: too long for its context, say) fails the same way
      // every time, so it ends this episode. Everything else propagates: outages for the run to be resumed, and
      // 401/404 (a wrong key or model name) because every episode would fail alike and must not pass as results.
      const { retryable, status } = error as { retryable?: unknown; status?: unknown };
      if (retryable !== false || status !== 400) throw error;
      attempts.push({ raw: '', problem: 'rejected', detail: (error as Error).message });
      throw new SimulatorError({ ...where, attempts });
    }
    const parsed = parse(raw);
    if (parsed.ok) return { raw, parsed: parsed.value };
    attempts.push({ raw, problem: parsed.problem, detail: parsed.detail });
  }
  throw new SimulatorError({ ...where, attempts });
}

/**
 * Unparseable output ends the session as 'error', in the state it had before the failed turn (no half-applied
 * score); transport errors propagate and leave it as it was.
 */
async function guarded(
  session: SimulatorSession,
  work: (next: SimulatorSession) => Promise<void>,
): Promise<SimulatorSession> {
  const next = structuredClone(session);
  try {
    await work(next);
    return next;
  } catch (error) {
    if (!(error instanceof SimulatorError)) throw error;
    return { ...structuredClone(session), ended: 'error', error: error.detail };
  }
}

/**
 * EMPA's user stays until the verdict: in 'epm' mode the actor never gets the buckets whose behaviour is to leave
 * (S thanks and says goodbye, F walks off), or a policy that helps fast would end before success can be judged.
 */
function actorBucket(mode: SimulatorSession['mode'], bucket: EpisodeState['bucket']): EpisodeState['bucket'] {
  if (mode === 'sage') return bucket;
  return bucket === 'S' ? 'A' : bucket === 'F' ? 'C' : bucket;
}

/** Starts a conversation: the fixed opener (or one the actor writes) and, with a judge, the EPM starting deficit. */
export async function openSession(
  profile: SentientProfile,
  deps: SimulatorDeps,
  options: SimulatorOptions = {},
): Promise<SimulatorSession> {
  const mode = options.mode ?? 'sage';
  const judge = deps.judge;
  if (mode === 'epm' && !judge) throw new Error("the 'epm' mode needs a judge model");
  const config = options.config ?? DEFAULT_REWARD_CONFIG;
  const startScore = options.startScore ?? config.liveEmotion.startScore;
  const tries = 1 + (options.parseRetries ?? 1);
  const session: SimulatorSession = {
    profileId: profile.id,
    mode,
    startScore,
    maxPolicyTurns: options.maxPolicyTurns ?? (mode === 'epm' ? EPM_MAX_TURNS : SAGE_MAX_POLICY_TURNS),
    tries,
    state: initialState(startScore),
    opener: profile.firstMessage ?? '',
    history: [],
    trace: [],
    ended: null,
  };
  return guarded(session, async (next) => {
    if (judge) {
      next.epm = await openEpm(profile, (messages) =>
        callParsed((m) => judge(m, 'iedr'), messages, parseIedrOutput, tries, { turn: 0, call: 'judge' }),
      );
    }
    if (!next.opener) {
      const messages = actorMessages({ profile, bucket: next.state.bucket, history: [] });
      next.opener = (
        await callParsed(deps.actor, messages, parseActorOutput, tries, { turn: 0, call: 'actor' })
      ).parsed.response;
    }
    next.history.push({ role: 'user', content: next.opener });
  });
}

/**
 * The user's side of one turn (§1.2): the policy's reply (think text stripped) is judged on C/A/P when a judge is
 * set, the analyser moves the score, the actor answers from the emotion bucket, and the mode's stop rule is checked.
 */
export async function respond(
  session: SimulatorSession,
  profile: SentientProfile,
  policyRaw: string,
  deps: SimulatorDeps,
  config: RewardConfig = DEFAULT_REWARD_CONFIG,
): Promise<SimulatorSession> {
  if (session.ended) throw new Error(`the conversation has ended (${session.ended})`);
  if (profile.id !== session.profileId) throw new Error(`session belongs to profile ${session.profileId}`);
  return guarded(session, async (next) => {
    const turn = next.trace.length + 1;
    const policyReply = stripThink(policyRaw).trim();
    const before = [...next.history];
    next.history.push({ role: 'assistant', content: policyReply });

    let epm: EpmTurn | undefined;
    if (deps.judge && next.epm) {
      const judge = deps.judge;
      const judged = await callParsed(
        (m) => judge(m, 'turn'),
        turnJudgeMessages({ profile, history: before, reply: policyReply }),
        parseTurnJudgeOutput,
        next.tries,
        { turn, call: 'judge' },
      );
      const advanced = advanceEpm(next.epm, judged, EPM_MIN_TURNS);
      next.epm = advanced.record;
      epm = advanced.turn;
    }

    const analyser = await callParsed(
      deps.analyser,
      analyserMessages({
        profile,
        score: next.state.score,
        history: next.history,
        maxDelta: config.liveEmotion.maxDelta,
      }),
      (raw) => parseAnalyserOutput(raw, config),
      next.tries,
      { turn, call: 'analyser' },
    );
    next.state = applyTurn(next.state, analyser.parsed.change, config);

    const actor = await callParsed(
      deps.actor,
      actorMessages({
        profile,
        bucket: actorBucket(next.mode, next.state.bucket),
        history: next.history,
        analysis: analyser.parsed,
      }),
      parseActorOutput,
      next.tries,
      { turn, call: 'actor' },
    );
    const userMessage = actor.parsed.response;
    next.history.push({ role: 'user', content: userMessage });
    next.trace.push({
      turn,
      policyRaw,
      policyReply,
      analyser,
      delta: analyser.parsed.change,
      score: next.state.score,
      bucket: next.state.bucket,
      actor,
      userMessage,
      goodbye: actor.parsed.goodbye,
      ...(epm && { epm }),
    });
    next.ended = stopRule(next, actor.parsed.goodbye, turn, config);
  });
}

function stopRule(
  session: SimulatorSession,
  goodbye: boolean,
  turn: number,
  config: RewardConfig,
): EpisodeEndReason | null {
  if (session.mode === 'sage') {
    return endCondition(
      session.state,
      { goodbye, policyTurns: turn, maxPolicyTurns: session.maxPolicyTurns },
      config,
    );
  }
  if (goodbye) return 'goodbye';
  if (session.epm?.verdict === 'success') return 'epm_success';
  if (session.epm?.verdict === 'failure') return 'epm_failure';
  return turn >= session.maxPolicyTurns ? 'max_turns' : null;
}
