export {
  ChatModelClient,
  DEFAULT_CLIENT_OPTIONS,
  MODEL_PRIORITY,
  type ChatModelClientOptions,
  type ChatCompletionText,
  type ChatRequest,
  type ChatStreamEvent,
} from './chat-model-client';
export { CircuitBreaker, type BreakerLease, type CircuitBreakerOptions } from './circuit-breaker';
export { ChatCompletionsTransport, type ModelEndpoint } from './chat-completions-transport';
export { connectionError, ModelError, modelErrorForStatus, type ModelErrorCode } from './model-errors';
export {
  completeStructured,
  type Parsed,
  type StructuredCompletionOptions,
  type StructuredOutcome,
} from './structured-completion';
export { Semaphore } from './semaphore';
export {
  SideWorkLane,
  SideWorkLanes,
  sideWorkEnv,
  vllmLoad,
  type EngineLoad,
  type SideWorkAdmission,
  type SideWorkEnv,
  type SideWorkLaneOptions,
} from './side-work-lane';
