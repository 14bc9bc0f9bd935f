import type { RewardLabelStatus } from '@echoloop/persistence';
import type { RewardComponent } from '@echoloop/rewards';

/** A component's label before it is stored. */
export interface LabelDraft {
  component: RewardComponent;
  status: RewardLabelStatus;
  value: number | null;
  label: string | null;
  judgeModel: string | null;
  promptVersion: string | null;
  rawOutput: string | null;
  error: string | null;
  details: Record<string, unknown> | null;
}

export function skipped(component: RewardComponent, reason: string): LabelDraft {
  return {
    component,
    status: 'skipped',
    value: null,
    label: null,
    judgeModel: null,
    promptVersion: null,
    rawOutput: null,
    error: null,
    details: { reason },
  };
}
