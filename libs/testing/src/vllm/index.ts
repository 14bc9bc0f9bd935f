export { startFakeVllm } from './start-fake-vllm';
export type {
  FakeVllm,
  FakeVllmFaults,
  FakeVllmOptions,
  FaultSource,
  LoraAdapter,
  RecordedRequest,
} from './fake-vllm-types';
export {
  jsonReply,
  replyByRules,
  replyQueue,
  replyWith,
  ReplyQueueEmptyError,
  type ReplyRule,
  type ReplyScript,
  type ReplySource,
} from './scripted-replies';
export {
  countPromptTokens,
  splitIntoTokens,
  TEMPLATE_TOKENS_FOR_REPLY,
  TEMPLATE_TOKENS_PER_MESSAGE,
} from './word-piece-tokenizer';
export { askServer, differences, shapeOf, type ContractAnswer } from './contract/answers';
export {
  CONTRACT_EXCHANGES,
  fill,
  unfill,
  type ContractExchange,
  type Placeholders,
} from './contract/exchanges';
