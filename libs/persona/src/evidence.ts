import { MAX_EVIDENCE_IDS } from './merge-rules';

/** The evidence list with `messageId` moved to (or added at) the end, keeping only the newest ids. */
export function appendEvidence(evidence: readonly string[] | undefined, messageId: string): string[] {
  const kept = evidence ? evidence.filter((id) => id !== messageId) : [];
  kept.push(messageId);
  return kept.length > MAX_EVIDENCE_IDS ? kept.slice(kept.length - MAX_EVIDENCE_IDS) : kept;
}
