import type { Contract } from './envelope';
import { chatFeedbackV1 } from './chat/chat-feedback.v1';
import { chatFeedbackV2 } from './chat/chat-feedback.v2';
import { chatTurnCompletedV1 } from './chat/chat-turn-completed.v1';
import { rewardTurnLabelledV1 } from './reward/reward-turn-labelled.v1';
import { rlJobStatusV1 } from './rl/rl-job-status.v1';
import { rlJobStatusV2 } from './rl/rl-job-status.v2';
import { TOPICS, type Topic } from './topics';

/** Every contract, by its topic: what a message found on a topic (a dead letter replayed, say) must satisfy. */
export const CONTRACTS: { readonly [T in Topic]: Contract } = {
  [TOPICS.chatTurnCompleted]: chatTurnCompletedV1,
  [TOPICS.chatFeedbackV1]: chatFeedbackV1,
  [TOPICS.chatFeedbackV2]: chatFeedbackV2,
  [TOPICS.rewardTurnLabelled]: rewardTurnLabelledV1,
  [TOPICS.rlJobStatus]: rlJobStatusV1,
  [TOPICS.rlJobStatusV2]: rlJobStatusV2,
};

export function contractOfTopic(topic: string): Contract | undefined {
  return Object.hasOwn(CONTRACTS, topic) ? CONTRACTS[topic as Topic] : undefined;
}
