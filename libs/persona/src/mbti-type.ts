import { MBTI_AXES, MBTI_LETTERS, type MbtiAxis } from './fields';
import { MAX_EVIDENCE_IDS } from './merge-rules';
import { type MbtiTypeField, type NumericField, type UserProfile } from './profile';

/**
 * The 4-letter type from the four axis probabilities, once all four are known. Its confidence is the weakest
 * axis confidence times the chance that all four letters are right (0.7 on each axis gives 0.24).
 */
export function deriveMbtiType(
  profile: UserProfile,
  axisConfidence: (axis: MbtiAxis, field: NumericField) => number,
  updatedAt: string,
): MbtiTypeField | undefined {
  let letters = '';
  let weakest = 1;
  let allLettersRight = 1;
  const evidence = new Set<string>();
  for (const axis of MBTI_AXES) {
    const field = profile[axis];
    if (!field) return undefined;
    const [above, below] = MBTI_LETTERS[axis];
    letters += field.value >= 0.5 ? above : below;
    weakest = Math.min(weakest, axisConfidence(axis, field));
    allLettersRight *= Math.max(field.value, 1 - field.value);
    for (const id of field.evidence) evidence.add(id);
  }
  return {
    value: letters,
    confidence: weakest * allLettersRight,
    evidence: [...evidence].slice(-MAX_EVIDENCE_IDS),
    updatedAt,
  };
}
