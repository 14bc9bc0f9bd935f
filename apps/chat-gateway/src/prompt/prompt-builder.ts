import type { ChatMessage } from '@echoloop/llm';
import { applyMacros, type CharacterCardData } from '../characters/character-card';

export interface PromptInput {
  character: CharacterCardData;
  userName: string;
  /** Earlier turns, oldest first (the greeting included). */
  history: ChatMessage[];
  userMessage: string;
  /** Tokens the prompt may use: the model's context minus the reply's max_tokens. */
  budgetTokens: number;
  /** Filled by persona inference (later); empty for now. */
  personaGuidance?: string;
  /** Crisis resources and instructions when the turn is flagged. */
  safetyInstructions?: string;
}

export interface Prompt {
  messages: ChatMessage[];
  /** History turns left out to fit the budget (they will live on in the rolling summary). */
  droppedTurns: number;
  estimatedTokens: number;
}

/** Rough token estimate (≈4 characters per token for English); the serving endpoint's count is used when known. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4) + 4;

const SAFETY_MARGIN = 0.9;

/**
 * Order matters for vLLM's prefix cache: the character definition (stable, never truncated) first, then persona
 * guidance, then the most recent history that fits, then the new user message.
 */
export function buildPrompt(input: PromptInput): Prompt {
  const names = { char: input.character.name, user: input.userName };
  const system = [characterDefinition(input.character), input.personaGuidance, input.safetyInstructions]
    .filter((part): part is string => Boolean(part?.trim()))
    .map((part) => applyMacros(part, names))
    .join('\n\n');
  const head: ChatMessage = { role: 'system', content: system };
  const tail: ChatMessage = { role: 'user', content: input.userMessage };

  let used = estimateTokens(head.content) + estimateTokens(tail.content);
  const budget = Math.floor(input.budgetTokens * SAFETY_MARGIN);
  const kept: ChatMessage[] = [];
  for (const message of [...input.history].reverse()) {
    const cost = estimateTokens(message.content);
    if (used + cost > budget) break;
    used += cost;
    kept.unshift(message);
  }
  return {
    messages: [head, ...kept, tail],
    droppedTurns: input.history.length - kept.length,
    estimatedTokens: used,
  };
}

/** The character card as a system prompt; `creator_notes` are for humans and never reach the model. */
function characterDefinition(card: CharacterCardData): string {
  const sections = [
    card.system_prompt || `You are {{char}}. Stay in character and reply to {{user}} as {{char}} would.`,
    card.description && `{{char}}'s description:\n${card.description}`,
    card.personality && `{{char}}'s personality: ${card.personality}`,
    card.scenario && `Scenario: ${card.scenario}`,
    card.mes_example && `Example dialogue:\n${card.mes_example}`,
  ];
  return sections.filter(Boolean).join('\n\n');
}
