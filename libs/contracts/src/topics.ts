/** Topic names: `<domain>.<entity>.<event>.v<N>`. */
export const TOPICS = {
  chatTurnCompleted: 'chat.turn.completed.v1',
  chatFeedbackV1: 'chat.feedback.v1',
  chatFeedbackV2: 'chat.feedback.v2',
  rewardTurnLabelled: 'reward.turn.labelled.v1',
  rlJobStatus: 'rl.job.status.v1',
  rlJobStatusV2: 'rl.job.status.v2',
} as const;

export type Topic = (typeof TOPICS)[keyof typeof TOPICS];

/** Where a consumer parks a message it cannot process, with the reason in the headers. */
export const deadLetterTopic = (topic: string): string => `${topic}.dlq`;
