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
  listEvaluationsQuery,
  type ListEvaluationsQuery,
} from './evaluation-request';
export { GATE_CHECK_NAMES, type GateCheck, type GateCheckName, type GateReport } from './gate-report';
export {
  isRlJobEnded,
  RL_JOB_ACTIVE_STATUSES,
  RL_JOB_END_STATUSES,
  RL_JOB_STATUSES,
  RL_TEMPLATES,
  RL_TRIGGERS,
  type RlJobActiveStatus,
  type RlJobEndStatus,
  type RlJobStatus,
  type RlTemplateName,
  type RlTrigger,
} from './rl-job';
export { stripThink, THINK_CLOSE, THINK_OPEN } from './think';
