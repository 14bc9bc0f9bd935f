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
export { chatTurnCompletedV1 } from './chat/chat-turn-completed.v1';
