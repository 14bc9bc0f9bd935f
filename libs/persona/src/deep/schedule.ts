import { type UserProfile } from '../profile';

/** A deep extraction runs after this many user messages since the last one... */
export const DEEP_EVERY_USER_TURNS = 4;
/** ...or sooner when the fast features shift, but not more often than this. */
export const DEEP_MIN_USER_TURNS = 2;

/** Fields whose change of value means the user's situation moved: worth a closer look than fast features give. */
const SHIFT_FIELDS = ['emotion', 'hiddenNeed', 'empathyAxis', 'initiative'] as const;

/** Whether a message moved the value of a situation field (a field appearing for the first time counts). */
export function fastFeaturesShifted(before: UserProfile, after: UserProfile): boolean {
  return SHIFT_FIELDS.some(
    (field) => after[field] !== undefined && after[field]?.value !== before[field]?.value,
  );
}

/** Whether to run a deep extraction now, given the user messages since the last one and whether they shifted. */
export function deepExtractionDue(userTurnsSinceDeep: number, shifted: boolean): boolean {
  return (
    userTurnsSinceDeep >= DEEP_EVERY_USER_TURNS || (shifted && userTurnsSinceDeep >= DEEP_MIN_USER_TURNS)
  );
}
