import { CoreTables1795289640249 } from './1795289640249-CoreTables';
import { RegistryFeedbackApiKeys1795291472180 } from './1795291472180-RegistryFeedbackApiKeys';
import { ConversationMemory1795294004639 } from './1795294004639-ConversationMemory';
import { UserProfiles1795296223745 } from './1795296223745-UserProfiles';
import { DeepPersonaAndDirector1795310000000 } from './1795310000000-DeepPersonaAndDirector';
import { RewardLabels1795310100000 } from './1795310100000-RewardLabels';
import { Experiments1795310200000 } from './1795310200000-Experiments';
import { Evaluations1795310300000 } from './1795310300000-Evaluations';
import { RewardTurnIndexes1795310400000 } from './1795310400000-RewardTurnIndexes';
import { SimulatorSessions1795310500000 } from './1795310500000-SimulatorSessions';
import { AccountDisabled1795310600000 } from './1795310600000-AccountDisabled';
import { SessionTokens1795310700000 } from './1795310700000-SessionTokens';
import { ScopedApiKeys1795310800000 } from './1795310800000-ScopedApiKeys';
import { AccountAudit1795310900000 } from './1795310900000-AccountAudit';
import { CharacterAssets1795311000000 } from './1795311000000-CharacterAssets';
import { ThumbsAndStars1795311100000 } from './1795311100000-ThumbsAndStars';
import { TrainingConsent1795311200000 } from './1795311200000-TrainingConsent';
import { DatasetExports1795311300000 } from './1795311300000-DatasetExports';
import { ConversationRetention1795311400000 } from './1795311400000-ConversationRetention';
import { RlJobs1795311500000 } from './1795311500000-RlJobs';
import { GatewayCluster1795311600000 } from './1795311600000-GatewayCluster';
import { SharedDailyQuota1795311700000 } from './1795311700000-SharedDailyQuota';
import { NumberedUserTurns1795311800000 } from './1795311800000-NumberedUserTurns';
import { ReplyParentIndex1795311900000 } from './1795311900000-ReplyParentIndex';
import { AdapterPlacements1795312000000 } from './1795312000000-AdapterPlacements';
import { EvaluationMaxTurns1795312100000 } from './1795312100000-EvaluationMaxTurns';
import { SimulatedUsers1795312200000 } from './1795312200000-SimulatedUsers';
import { ExperimentPrePeriods1795312300000 } from './1795312300000-ExperimentPrePeriods';
import { RewardTurnsByUser1795312400000 } from './1795312400000-RewardTurnsByUser';
import { EditedReplies1795312500000 } from './1795312500000-EditedReplies';
import { DeadLetters1795312700000 } from './1795312700000-DeadLetters';
import { LabelRetries1795312800000 } from './1795312800000-LabelRetries';
import { ExportOrigin1795312900000 } from './1795312900000-ExportOrigin';
import { PersonalApiKeys1795312600000 } from './1795312600000-PersonalApiKeys';

/** Every migration, oldest first. A new one is added here and never edited once released. */
export const MIGRATIONS = [
  CoreTables1795289640249,
  RegistryFeedbackApiKeys1795291472180,
  ConversationMemory1795294004639,
  UserProfiles1795296223745,
  DeepPersonaAndDirector1795310000000,
  RewardLabels1795310100000,
  Experiments1795310200000,
  Evaluations1795310300000,
  RewardTurnIndexes1795310400000,
  SimulatorSessions1795310500000,
  AccountDisabled1795310600000,
  SessionTokens1795310700000,
  ScopedApiKeys1795310800000,
  AccountAudit1795310900000,
  CharacterAssets1795311000000,
  ThumbsAndStars1795311100000,
  TrainingConsent1795311200000,
  DatasetExports1795311300000,
  ConversationRetention1795311400000,
  RlJobs1795311500000,
  GatewayCluster1795311600000,
  SharedDailyQuota1795311700000,
  NumberedUserTurns1795311800000,
  ReplyParentIndex1795311900000,
  AdapterPlacements1795312000000,
  EvaluationMaxTurns1795312100000,
  SimulatedUsers1795312200000,
  ExperimentPrePeriods1795312300000,
  RewardTurnsByUser1795312400000,
  EditedReplies1795312500000,
  PersonalApiKeys1795312600000,
  DeadLetters1795312700000,
  LabelRetries1795312800000,
  ExportOrigin1795312900000,
];
