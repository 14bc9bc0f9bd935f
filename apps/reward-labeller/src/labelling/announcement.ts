import { createEvent, type EventOf, rewardTurnLabelledV1 } from '@echoloop/contracts';
import type { RewardTurnEntity } from '@echoloop/persistence';
import { compositeReward, type RewardComponent, type RewardConfig } from '@echoloop/rewards';
import type { StoredLabel } from './stored-label';

const SERVICE = 'reward-labeller';

export type Composite = ReturnType<typeof compositeReward> | null;

/** The composite over a turn's labelled components (null when none is labelled). */
export function compositeOf(labels: readonly StoredLabel[], config: RewardConfig): Composite {
  const values: Partial<Record<RewardComponent, number>> = {};
  for (const l of labels)
    if (l.status === 'labelled' && l.value !== null) values[l.component as RewardComponent] = l.value;
  return Object.keys(values).length > 0 ? compositeReward(values, config) : null;
}

/** reward.turn.labelled.v1 for the turn as it stands; a revision announces the turn again with its new values. */
export function turnLabelledEvent(
  turn: RewardTurnEntity,
  version: string,
  labels: readonly StoredLabel[],
  composite: Composite,
): EventOf<typeof rewardTurnLabelledV1> {
  const emotion = labels.find((l) => l.component === 'live_emotion')?.details?.['scoreAfter'];
  return createEvent(
    rewardTurnLabelledV1,
    {
      turnId: turn.turnId,
      conversationId: turn.conversationId,
      userId: turn.userId,
      checkpointId: turn.checkpointId,
      experimentId: turn.experimentId,
      armId: turn.armId,
      labellerVersion: version,
      components: labels.map((l) => ({
        component: l.component as RewardComponent,
        status: l.status,
        value: l.value,
        label: l.label,
        judgeModel: l.judgeModel,
        promptVersion: l.promptVersion,
        error: l.error,
      })),
      composite: composite && { value: composite.value, version: composite.version },
      emotionScore: typeof emotion === 'number' ? emotion : null,
      labelledAt: new Date().toISOString(),
    },
    SERVICE,
  );
}
