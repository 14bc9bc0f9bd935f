import { type ChatCompletionRequest } from '@echoloop/openai-compat';
import type { ScriptedConversation } from './dataset';

const NUMBERED_USER = /^\[(\d+)\] User: (.*)$/gm;

/**
 * A reply script for the vLLM-compatible test server: it answers an extraction request with the scripted
 * extraction of the conversation it shows, limited to the user messages shown so far (a field whose evidence
 * has not been said yet is left out, as a model could not know it), renumbered to the window.
 */
export function scriptedExtractionReply(dataset: readonly ScriptedConversation[]) {
  const missing = dataset.filter((c) => !c.scriptedExtraction).map((c) => c.id);
  if (missing.length > 0)
    throw new Error(
      `the scripted mode replays hand-written extractions, a test of the pipeline on the dev set; ${missing.length} conversations have none (${missing.slice(0, 3).join(', ')})`,
    );
  return (request: ChatCompletionRequest): string => {
    const transcript = request.messages.at(-1)?.content ?? '';
    const shown = [...transcript.matchAll(NUMBERED_USER)].map((match) => match[2] ?? '');
    const conversation = dataset.find((c) => c.turns.some((turn) => turn.user.startsWith(shown[0] ?? '\0')));
    if (!conversation || shown.length === 0) return '{}';
    const offset = conversation.turns.findIndex((turn) => turn.user.startsWith(shown[0] ?? ''));
    const extraction: Record<string, unknown> = {};
    for (const [field, report] of Object.entries(conversation.scriptedExtraction ?? {})) {
      const { evidence, ...rest } = report as { evidence: number[] };
      const visible = evidence.map((n) => n - offset).filter((n) => n >= 1 && n <= shown.length);
      if (visible.length > 0) extraction[field] = { ...rest, evidence: visible };
    }
    return JSON.stringify(extraction);
  };
}
