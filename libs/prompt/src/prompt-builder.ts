import type { ChatMessage } from '@echoloop/vocabulary';
import {
  activateLorebook,
  applyMacros,
  characterNameForMacros,
  type CharacterCard,
} from '@echoloop/character-cards';

export interface PromptInput {
  card: CharacterCard;
  userName: string;
  /** `{{char}}` when not the card's own name (a client's transcript names the character its way). */
  characterName?: string;
  /** Earlier turns, oldest first (the greeting included). */
  history: ChatMessage[];
  userMessage: string;
  /** Tokens the prompt may use: the model's context minus the reply's max_tokens. */
  budgetTokens: number;
  /** Real tokens per estimated token for this checkpoint (TokenCalibration); 1 when unknown. */
  tokenFactor?: number;
  /** The conversation's rolling summary of turns that no longer fit. */
  memory?: string | null;
  /** How to adapt to this user, from the inferred profile. */
  personaGuidance?: string;
  /** The director's note for this reply, when it has one. */
  direction?: string;
  /** Crisis resources and instructions when the turn is flagged. */
  safetyInstructions?: string;
  /**
   * A client's own system prompt (the OpenAI-compatible endpoint): it replaces the card's definition, world info
   * and post-history instructions, which the client did not ask for.
   */
  systemPrompt?: string;
}

export interface Prompt {
  messages: ChatMessage[];
  /** History turns left out to fit the budget (they will live on in the rolling summary). */
  droppedTurns: number;
  /** Lorebook entries inserted, by index in the card's character_book. */
  lorebookEntries: number[];
  /** Our estimate of the prompt's tokens, calibration included. */
  estimatedTokens: number;
}

/** Rough token estimate (≈4 characters per token for English); the serving endpoint's count is used when known. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4) + 4;

export const DEFAULT_SYSTEM_PROMPT =
  'You are {{char}}. Stay in character and reply to {{user}} as {{char}} would.';

const SAFETY_MARGIN = 0.9;
/** World info may take at most this share of the budget, so it never crowds out the conversation. */
const LOREBOOK_SHARE = 0.25;

/**
 * Order matters for vLLM's prefix cache: the character definition (stable, never truncated) first, then what
 * varies per turn (world info, persona guidance, safety), then the most recent history that fits, the card's
 * post-history instructions, and the new user message. `creator_notes` are for humans and never reach the model.
 */
export function buildPrompt(input: PromptInput): Prompt {
  const { card } = input;
  const factor = input.tokenFactor ?? 1;
  const estimate = (text: string) => Math.ceil(estimateTokens(text) * factor);
  const names = { char: input.characterName ?? characterNameForMacros(card), user: input.userName };
  const budget = Math.floor(input.budgetTokens * SAFETY_MARGIN);
  const recent = [...input.history.map((m) => m.content), input.userMessage];
  const clientPrompt = input.systemPrompt?.trim() ? input.systemPrompt : undefined;
  const lore = activateLorebook(clientPrompt === undefined ? card.data.character_book : undefined, {
    recentMessages: recent,
    budgetTokens: Math.floor(budget * LOREBOOK_SHARE),
    estimateTokens: estimate,
  });
  const worldInfo = lore.entries.length
    ? `World info:\n${lore.entries.map((e) => e.content).join('\n')}`
    : '';
  const memory = input.memory ? `What you remember from earlier in this conversation:\n${input.memory}` : '';
  const system = [
    clientPrompt ?? characterDefinition(card),
    worldInfo,
    memory,
    input.personaGuidance,
    input.direction,
    input.safetyInstructions,
  ]
    .filter((part): part is string => Boolean(part?.trim()))
    .map((part) => applyMacros(part, names))
    .join('\n\n');
  const head: ChatMessage = { role: 'system', content: system };
  const postHistory = clientPrompt === undefined ? card.data.post_history_instructions.trim() : '';
  const tail: ChatMessage[] = [
    ...(postHistory ? [{ role: 'system' as const, content: applyMacros(postHistory, names) }] : []),
    { role: 'user', content: input.userMessage },
  ];

  let used = [head, ...tail].reduce((sum, m) => sum + estimate(m.content), 0);
  const kept: ChatMessage[] = [];
  for (const message of [...input.history].reverse()) {
    const cost = estimate(message.content);
    if (used + cost > budget) break;
    used += cost;
    kept.unshift(message);
  }
  return {
    messages: [head, ...kept, ...tail],
    droppedTurns: input.history.length - kept.length,
    lorebookEntries: lore.entries.map((e) => e.index),
    estimatedTokens: used,
  };
}

/** The card as a system prompt; a card's own system_prompt may embed the default via {{original}}. */
function characterDefinition(card: CharacterCard): string {
  const data = card.data;
  const systemPrompt = data.system_prompt.trim()
    ? applyMacros(data.system_prompt, { char: '{{char}}', user: '{{user}}', original: DEFAULT_SYSTEM_PROMPT })
    : DEFAULT_SYSTEM_PROMPT;
  const sections = [
    systemPrompt,
    data.description && `{{char}}'s description:\n${data.description}`,
    data.personality && `{{char}}'s personality: ${data.personality}`,
    data.scenario && `Scenario: ${data.scenario}`,
    data.mes_example && `Example dialogue:\n${data.mes_example}`,
  ];
  return sections.filter(Boolean).join('\n\n');
}
