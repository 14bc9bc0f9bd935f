import { AccountAuditEntity } from './account-audit.entity';
import { AdapterPlacementEntity } from './adapter-placement.entity';
import { ApiKeyEntity } from './api-key.entity';
import { CharacterAssetEntity } from './character-asset.entity';
import { CharacterEntity } from './character.entity';
import { CheckpointEntity } from './checkpoint.entity';
import { EvaluationEntity, EvaluationEpisodeEntity } from './evaluation.entity';
import { ExperimentAssignmentEntity } from './experiment-assignment.entity';
import { ExperimentAuditEntity } from './experiment-audit.entity';
import {
  ExperimentArmMetricEntity,
  ExperimentUserMetricEntity,
  ExperimentUserPrePeriodEntity,
} from './experiment-metric.entity';
import { ExperimentEntity } from './experiment.entity';
import { FeedbackEntity } from './feedback.entity';
import { ConversationEntity } from './conversation.entity';
import { MessageEntity } from './message.entity';
import { OutboxEntity } from './outbox.entity';
import { RewardConversationEntity } from './reward-conversation.entity';
import { RewardLabelEntity } from './reward-label.entity';
import { RewardTurnEntity } from './reward-turn.entity';
import { DatasetExportEntity, DatasetExportUserEntity } from './dataset-export.entity';
import { DeadLetterEntity } from './dead-letter.entity';
import { RlJobEntity, RlTriggerDecisionEntity } from './rl-job.entity';
import { TurnGateEntity } from './turn-gate.entity';
import { PendingSignalsEntity } from './pending-signals.entity';
import { RefreshTokenEntity } from './refresh-token.entity';
import { SessionEntity } from './session.entity';
import { SimulatorSessionEntity } from './simulator-session.entity';
import { UserProfileEntity } from './user-profile.entity';
import { UserEntity } from './user.entity';

export { ACCOUNT_AUDIT_ACTORS, AccountAuditEntity, type AccountAuditActor } from './account-audit.entity';
export {
  ADAPTER_PLACEMENT_STATES,
  AdapterPlacementEntity,
  type AdapterPlacementState,
} from './adapter-placement.entity';
export {
  API_KEY_KINDS,
  API_KEY_SERVICES,
  ApiKeyEntity,
  type ApiKeyKind,
  type ApiKeyService,
} from './api-key.entity';
export { CharacterAssetEntity } from './character-asset.entity';
export { CharacterEntity, type CardSpec } from './character.entity';
export {
  CHECKPOINT_STATUSES,
  CheckpointEntity,
  type CheckpointEndpoint,
  type CheckpointStatus,
  type DecodingParameters,
} from './checkpoint.entity';
export { type ClientSpeakers, ConversationEntity, type DirectorNote } from './conversation.entity';
export { EvaluationEntity, EvaluationEpisodeEntity, type PinnedModel } from './evaluation.entity';
export { ExperimentAssignmentEntity } from './experiment-assignment.entity';
export { ExperimentAuditEntity } from './experiment-audit.entity';
export {
  ExperimentArmMetricEntity,
  ExperimentUserMetricEntity,
  ExperimentUserPrePeriodEntity,
} from './experiment-metric.entity';
export {
  EXPERIMENT_STATUSES,
  type ExperimentArm,
  type ExperimentAudience,
  ExperimentEntity,
  type ExperimentStatus,
} from './experiment.entity';
export { FeedbackEntity } from './feedback.entity';
export { MessageEntity, type MessageRole, type MessageStatus } from './message.entity';
export { OutboxEntity } from './outbox.entity';
export { RewardConversationEntity } from './reward-conversation.entity';
export { REWARD_LABEL_STATUSES, RewardLabelEntity, type RewardLabelStatus } from './reward-label.entity';
export { RewardTurnEntity, type TurnSignals } from './reward-turn.entity';
export {
  DatasetExportEntity,
  DatasetExportUserEntity,
  EXPORT_ORIGINS,
  EXPORT_STATUSES,
  type ExportOrigin,
  type ExportStatus,
} from './dataset-export.entity';
export { PendingSignalsEntity } from './pending-signals.entity';
export { DEAD_LETTER_STATUSES, DeadLetterEntity, type DeadLetterStatus } from './dead-letter.entity';
export { RlJobEntity, RlTriggerDecisionEntity } from './rl-job.entity';
export { RefreshTokenEntity } from './refresh-token.entity';
export { SessionEntity } from './session.entity';
export { SimulatorSessionEntity } from './simulator-session.entity';
export { TurnGateEntity } from './turn-gate.entity';
export { UserProfileEntity } from './user-profile.entity';
export { ROLES, UserEntity, type Role } from './user.entity';

export const ENTITIES = [
  UserEntity,
  CharacterEntity,
  CharacterAssetEntity,
  ConversationEntity,
  MessageEntity,
  OutboxEntity,
  CheckpointEntity,
  FeedbackEntity,
  ApiKeyEntity,
  UserProfileEntity,
  RewardTurnEntity,
  RewardLabelEntity,
  RewardConversationEntity,
  ExperimentEntity,
  ExperimentAssignmentEntity,
  ExperimentAuditEntity,
  ExperimentUserMetricEntity,
  ExperimentUserPrePeriodEntity,
  ExperimentArmMetricEntity,
  EvaluationEntity,
  EvaluationEpisodeEntity,
  SimulatorSessionEntity,
  AccountAuditEntity,
  SessionEntity,
  RefreshTokenEntity,
  PendingSignalsEntity,
  DatasetExportEntity,
  DatasetExportUserEntity,
  RlJobEntity,
  RlTriggerDecisionEntity,
  TurnGateEntity,
  AdapterPlacementEntity,
  DeadLetterEntity,
];
