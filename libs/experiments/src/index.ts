export { type Arm, assignArm, assignmentBucket } from './assignment';
export { ASSIGNMENT_TEST_VECTORS, type AssignmentTestVector } from './assignment-vectors';
export { probabilityToBeatControl } from './bayesian';
export { meanConfidenceInterval } from './confidence-interval';
export { type GuardrailDirection, guardrailBreached } from './guardrail';
export { EXPERIMENT_METRICS, type ExperimentMetric, isExperimentMetric } from './metrics';
export { addValue, emptyMoments, mergeMoments, type Moments, summarize, type Summary } from './moments';
export {
  DEFAULT_TAU2_FRACTION,
  runningMinimum,
  type SequentialOptions,
  type SequentialResult,
  sequentialTest,
} from './sequential';
export { chiSquareSurvival } from './special/chi-square';
export { normalCdf, normalQuantile } from './special/normal';
export { studentTCdf, studentTQuantile, studentTTwoSidedTail } from './special/student-t';
export { pairedDifference, type PairedDifference } from './paired';
export { DEFAULT_SRM_THRESHOLD, sampleRatioMismatch, type SampleRatioMismatchResult } from './srm';
export { welchTest, type WelchResult } from './welch';
export {
  addPair,
  type CovariateMoments,
  cupedAdjust,
  type CupedResult,
  emptyCovariateMoments,
} from './cuped';
export { holmAdjust } from './holm';
export { wilsonInterval } from './wilson';
