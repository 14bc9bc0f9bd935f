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
export { type EpmMetrics, epmMetrics } from './epm-metrics';
export { type EpmQ, epmQ, epmQIndices, type EpmQIndices } from './epm-q';
export { type EpmFailure, epmFailure, epmSuccess, type EpmSuccessOptions } from './epm-verdict';
export {
  type EpisodeDeps,
  type EpisodeOptions,
  type EpisodeResult,
  episodeResult,
  runEpisode,
} from './episode';
export {
  advanceEpm,
  EPM_MAX_TURNS,
  EPM_MIN_TURNS,
  type EpmRecord,
  type EpmTurn,
  type EpmVerdict,
  openEpm,
  relativeDistanceImprovement,
} from './epm-run';
export {
  type EpisodeEndReason,
  type EpisodeError,
  openSession,
  respond,
  type SimulatorDeps,
  type SimulatorOptions,
  type SimulatorSession,
  type TurnTrace,
} from './simulator';
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
export {
  assembleProfile,
  type GeneratedProfile,
  generatedProfileJsonSchema,
  generatedProfileSchema,
  parseGeneratedProfile,
  profileBuilderMessages,
} from './profile-builder';
export { type ProfileCheckOptions, type ProfileProblem, profileProblems } from './profile-checks';
export {
  assignProfileIds,
  parseSeedsJsonl,
  type ProfileSeed,
  profileIdFor,
  profileSeedSchema,
} from './profile-seeds';
export { type LineError } from './jsonl';
export { parseProfilesJsonl } from './profiles-jsonl';
export { actorMessages, analyserMessages, BUCKET_BEHAVIOUR } from './prompts';
export { spreadByHiddenNeed } from './sample';
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
