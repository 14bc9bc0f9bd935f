export { COMPONENTS, type RewardComponent } from './components';
export { compositeReward, type CompositeReward } from './composite';
export { DEFAULT_REWARD_CONFIG, parseRewardConfig, type RewardConfig, rewardConfigSchema } from './config';
export {
  emotionAnalyserMessages,
  emotionChangePattern,
  type EmotionAnalyserInput,
  parseEmotionDelta,
} from './emotion-analyser';
export {
  applyEmotionDelta,
  EMOTION_BUCKETS,
  type EmotionBucket,
  emotionBucket,
  leftReward,
  liveEmotionReward,
} from './emotion-score';
export {
  type EmpathyJudgeInput,
  empathyJudgeMessages,
  empathyLabels,
  type EmpathyMode,
  empathyMode,
  empathyReward,
} from './empathy';
export { humanlikeJudgeMessages, humanlikeLabels, humanlikeReward } from './humanlike';
export {
  hasImplicitSignal,
  type ImplicitSignals,
  implicitReward,
  LONG_REPLY_CHARS,
  QUICK_REPLY_MS,
} from './implicit';
export { type Parsed } from './parsed';
export { type ProcessFailure, type ProcessInput, processGate } from './process-gate';
export { sampledFor } from './sampling';
export { parseVerdict, RATIONALE_MAX_CHARS, verdictPattern } from './verdict';
export { statedScore } from './stated-score';
