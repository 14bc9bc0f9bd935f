/**
 * The words every layer shares (the apps, the libraries, the web app and the tools): what a chat message is, how
 * hidden reasoning is marked, an RL refresh's statuses and templates, the gate's report, and the requests one app
 * takes from another. Types, constants and zod schemas, nothing else, so that nothing needs a copy of its own.
 */
export { CHAT_ROLES, type ChatMessage, type ChatRole } from './chat-message';
export {
  createEvaluationRequest,
  type CreateEvaluationRequest,
  EVALUATION_ID_MAX_CHARS,
  EVALUATION_MODES,
  EVALUATION_STATUSES,
  type EvaluationMode,
  type EvaluationStatus,
  evaluationComparison,
  evaluationDetail,
  evaluationList,
  evaluationReport,
  evaluationSummary,
  evaluationView,
  listEvaluationsQuery,
  type ListEvaluationsQuery,
} from './evaluations';
export { simulatorSessionView, type SimulatorSessionView } from './simulator';
export {
  GATE_CHECK_NAMES,
  type GateCheck,
  gateCheck,
  type GateCheckName,
  type GateReport,
  gateReport,
  gateReportOf,
} from './gate-report';
export {
  isRlJobEnded,
  listRlJobsQuery,
  type ListRlJobsQuery,
  RL_JOB_ACTIVE_STATUSES,
  RL_JOB_END_STATUSES,
  RL_JOB_STATUSES,
  RL_TEMPLATES,
  RL_TRIGGERS,
  rlJobCancelled,
  rlJobDataset,
  rlJobDetail,
  type RlJobDetail,
  rlJobList,
  rlJobMetrics,
  rlJobOutput,
  rlJobSummary,
  type RlJobSummary,
  rlTriggers,
  type RlTriggers,
  trainingPoint,
  trainingSelection,
  type TrainingSelection,
  validationPoint,
  type RlJobActiveStatus,
  type RlJobEndStatus,
  type RlJobStatus,
  type RlTemplateName,
  type RlTrigger,
} from './rl-job';
export { stripThink, THINK_CLOSE, THINK_OPEN } from './think';
export { type TurnReply, turnReply, type TurnResult, turnResult } from './turn';
/** The apps' APIs as their OpenAPI documents type them (generated: tools/web/write-api-types.ts). */
export type {
  components as GatewayComponents,
  operations as GatewayOperations,
  paths as GatewayPaths,
} from './openapi/chat-gateway';
export type { components as EvalRunnerComponents, paths as EvalRunnerPaths } from './openapi/eval-runner';
export type { components as LabellerComponents, paths as LabellerPaths } from './openapi/reward-labeller';
export type {
  components as RlOrchestratorComponents,
  paths as RlOrchestratorPaths,
} from './openapi/rl-orchestrator';
