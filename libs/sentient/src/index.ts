export { type ChatMessage } from './chat-message';
export {
  EPM_AXES,
  type EpmAxis,
  type EpmState,
  type EpmStep,
  epmStart,
  epmStep,
  type AxisRating,
  IEDR_INDICATORS,
  type IedrIndicatorId,
  iedrToP0,
  normalize,
  norm,
  turnIncrement,
  type Vec3,
} from './epm';
export {
  iedrJsonSchema,
  iedrJudgeMessages,
  iedrLevels,
  type IedrOutput,
  iedrOutputSchema,
  parseIedrOutput,
  parseTurnJudgeOutput,
  turnJudgeJsonSchema,
  turnJudgeMessages,
  type TurnJudgeOutput,
  turnJudgeOutputSchema,
} from './epm-judge';
export { type EpmFailure, epmFailure, epmSuccess, type EpmSuccessOptions } from './epm-verdict';
export {
  type EpisodeDeps,
  type EpisodeError,
  type EpisodeOptions,
  type EpisodeResult,
  runEpisode,
  type TurnTrace,
} from './episode';
export { jsonSchemaOf, parseJsonOutput } from './json-output';
export { type BenchmarkMetrics, benchmarkMetrics, type MetricGroup } from './metrics';
export {
  actorJsonSchema,
  type ActorOutput,
  actorOutputSchema,
  analyserJsonSchema,
  type AnalyserOutput,
  analyserOutputSchema,
  parseActorOutput,
  parseAnalyserOutput,
  type ParsedAnalysis,
} from './parse';
export {
  EMPATHY_AXES,
  HIDDEN_NEED_DESCRIPTIONS,
  HIDDEN_NEEDS,
  type HiddenNeed,
  PERSONA_TYPES,
  type PersonaType,
  PROFILE_POOLS,
  type ProfilePool,
  type SentientProfile,
  sentientProfileSchema,
} from './profile';
export { type LineError, parseProfilesJsonl } from './profiles-jsonl';
export { actorMessages, analyserMessages, BUCKET_BEHAVIOUR } from './prompts';
export { hiddenNeedFromTask, type ImportResult, importSageProfile } from './sage-import';
export {
  applyTurn,
  clampDelta,
  type EndCheck,
  endCondition,
  type EndReason,
  episodeReward,
  type EpisodeState,
  initialState,
  RLVER_TRAIN_START_SCORE,
  SAGE_MAX_POLICY_TURNS,
  SAGE_MIN_SCORE,
  SAGE_START_SCORE,
} from './state';
