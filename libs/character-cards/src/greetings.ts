import { type CharacterCard } from './card-schema';

export type ChatKind = 'solo' | 'group';

/**
 * The greetings a chat may open with: `first_mes`, then `alternate_greetings` (the swipes of the first
 * message), then, in group chats only, the V3 `group_only_greetings`. Blank greetings are left out.
 */
export function listGreetings(card: CharacterCard, chat: ChatKind = 'solo'): string[] {
  const groupOnly = chat === 'group' && card.spec === 'chara_card_v3' ? card.data.group_only_greetings : [];
  return [card.data.first_mes, ...card.data.alternate_greetings, ...groupOnly].filter(
    (greeting) => greeting.trim() !== '',
  );
}
