export {
  createEvent,
  defineContract,
  envelopeSchema,
  type Contract,
  type Envelope,
  type EventOf,
  type PayloadOf,
} from './envelope';
export { TOPICS, deadLetterTopic, type Topic } from './topics';
export { CONTRACTS, contractOfTopic } from './contracts';
export { chatTurnCompletedV1 } from './chat/chat-turn-completed.v1';
export { chatFeedbackV1 } from './chat/chat-feedback.v1';
export { chatFeedbackV2, THUMBS, type Thumb } from './chat/chat-feedback.v2';
export { rewardTurnLabelledV1 } from './reward/reward-turn-labelled.v1';

/** A complete, valid example event, kept as the contract's golden sample (docs, tests, fixtures). */
export { default as chatTurnCompletedV1Example } from './chat/fixtures/chat-turn-completed.v1.json';
export { rlJobStatusV1 } from './rl/rl-job-status.v1';
export { rlJobStatusV2 } from './rl/rl-job-status.v2';
export { rlTemplateName } from './rl/rl-templates';
