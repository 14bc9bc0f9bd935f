export { bootstrap, type BootstrapOptions } from './bootstrap';
export { Backoff, backoffDelay, type BackoffOptions } from './scheduling/backoff';
export {
  every,
  PeriodicWorker,
  type PeriodicWorkerOptions,
  type WorkerLogger,
} from './scheduling/periodic-worker';
export { PlatformModule, type PlatformOptions } from './platform.module';
export { createLogger, loggerOptions, REDACTED_PATHS } from './logging/logger';
export { MetricsService } from './metrics/metrics.service';
export { sideWorkMetrics } from './metrics/side-work-metrics';
export {
  checkReadiness,
  HEALTH_INDICATORS,
  withTimeout,
  type HealthIndicator,
} from './health/health-indicator';
export { ErrorFilter, type ErrorBody } from './http/error.filter';
export { createKafka, type KafkaSettings } from './kafka/kafka-client';
export {
  decodeEvent,
  encodeEvent,
  EventDecodeError,
  eventHeaders,
  HEADER,
  headersToStrings,
} from './kafka/event-codec';
export { EventPublisher } from './kafka/event-publisher';
export {
  ContractConsumer,
  NonRetryableError,
  type ContractConsumerOptions,
  type MessageContext,
} from './kafka/contract-consumer';
export { runBatches, type BatchRunOptions, type PartitionLag } from './kafka/batch-run';
export {
  type ConsumerBaseOptions,
  consumerAttributes,
  ContractConsumerBase,
  messageOf,
  sleep,
} from './kafka/consumer-base';
export { deadLetterMessage, DLQ_HEADER, type DeadLetterKind } from './kafka/dead-letter';
export { ensureTopics, type TopicSpec } from './kafka/topic-admin';
export { KafkaLifecycle } from './kafka/kafka-lifecycle';
export { KAFKA } from './kafka/kafka.tokens';
export { validationDetails, validationFailed, ZodValidationPipe } from './http/zod-validation.pipe';
export { sendStream, type StreamFailureSink } from './http/send-stream';
export { handleProcessErrors, type ProcessErrorKind } from './process/process-errors';
export { ApiKeyGuard } from './api-keys/api-key.guard';
export { ApiKeysModule, type ApiKeysModuleOptions } from './api-keys/api-keys.module';
export {
  ApiKeysService,
  LAST_USED_WRITE_INTERVAL_MS,
  MAX_PERSONAL_KEYS,
  type ApiKeyPrincipal,
  type Minter,
  type PersonalKeyPrincipal,
} from './api-keys/api-keys.service';
export { ApiKeyRepository } from './api-keys/api-key.repository';
export { API_KEY_POLICY, API_KEY_SERVICE_NAME } from './api-keys/api-keys.tokens';
export {
  apiKeyPolicy,
  apiKeyPolicyEnv,
  DEFAULT_API_KEY_POLICY,
  type ApiKeyPolicy,
} from './api-keys/api-key-policy';
export {
  API_KEY_ROLES,
  apiKeyList,
  apiKeyView,
  apiKeyWithSecret,
  createApiKeySchema,
  createPersonalKeySchema,
  personalKeyList,
  personalKeyWithSecret,
  rotateApiKeySchema,
  type CreateApiKeyInput,
  type CreatePersonalKeyInput,
  type RotateApiKeyInput,
} from './api-keys/api-key.schemas';
export { API_KEY_PREFIX, generateApiKey, hashApiKey, PERSONAL_KEY_PREFIX } from './api-keys/api-key-secret';
export { REQUIRED_ROLES, Roles } from './api-keys/roles.decorator';
export { CLOCK, systemClock, type Clock } from './clock';
export {
  CHECKPOINT_ENDPOINT_REFUSED,
  checkpointEndpointEnv,
  checkpointEndpointPolicy,
  CheckpointEndpointRefusedError,
  checkpointEndpointProblems,
  checkpointModelEndpoints,
  type CheckpointEndpointPolicy,
} from './checkpoints/checkpoint-endpoint-policy';
export { IS_PUBLIC, Public } from './http/public.decorator';
export {
  enqueueEvent,
  enqueueRows,
  forgetUserEvents,
  OUTBOX_CHANNEL,
  OUTBOX_INSERT,
  outboxRow,
  type OutboxRow,
} from './outbox/outbox-writer';
export { OutboxRelay, type OutboxRelayOptions } from './outbox/outbox-relay';
export { OUTBOX_RELAY_PROVIDERS } from './outbox/outbox-relay.provider';
export { RetryAfterException } from './http/retry-after.exception';
export {
  findUnstorableText,
  TEXT_PROBLEMS,
  type TextIssue,
  unstorableTextProblem,
  userText,
  withStorableText,
} from './http/text';
export { type BodyLimits, installBodyParsing, type RouteBodyLimit } from './http/body-parsing';
export { assertStorableText, StorableInputInterceptor } from './http/storable-input.interceptor';
export { toClientError } from './http/client-errors';
export { callJson, type JsonCall, ServiceCallError } from './http/service-call';
export {
  type CallInput,
  type Operation,
  ServiceClient,
  type ServiceMethod,
  type ServiceTarget,
} from './http/service-client';
export { hashPassword, verifyPassword } from './accounts/password-hasher';
export { ACCOUNT_CHANGES_CHANNEL, notifyAccountChanged } from './accounts/account-changes';
export { PgListener, type PgListenerOptions } from './database/pg-listener';
export {
  type AccountAuditInput,
  type AdminOutcome,
  type BootstrapOutcome,
  countActiveAdmins,
  createOrPromoteAdmin,
  ensureBootstrapAdmin,
  lockAdminAccounts,
  type NewAdmin,
  writeAccountAudit,
} from './accounts/admin-accounts';
export { ApiDoc, ApiEvent, type ApiDocOptions, type ApiEventOptions } from './openapi/api-doc.decorators';
export { type OpenApiDocument, type SocketEventDoc } from './openapi/openapi-document';
export { type Progress, progressLine, progressReporter } from './cli/progress';
