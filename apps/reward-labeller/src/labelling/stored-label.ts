import type { RewardLabelEntity } from '@echoloop/persistence';

/** What announcing and projecting a finished turn read of its stored labels. */
export type StoredLabel = Pick<
  RewardLabelEntity,
  'component' | 'status' | 'value' | 'label' | 'judgeModel' | 'promptVersion' | 'error' | 'details'
>;
