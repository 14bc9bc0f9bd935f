import { type CharacterCard } from './card-schema';

export interface MacroValues {
  /** The character's name as the prompt shows it: see `characterNameForMacros`. */
  char: string;
  /** The user's display name (or persona). */
  user: string;
  /** What the text replaces, e.g. the default system prompt a card's `system_prompt` overrides. */
  original?: string;
}

const MACRO = /\{\{\s*(char|user|original)\s*\}\}|<(bot|char|user)>/gi;

/**
 * Substitutes `{{char}}`, `{{user}}`, `{{original}}` (any case, spaces inside the braces allowed) and the
 * legacy `<BOT>`, `<CHAR>`, `<USER>`, in one pass, so a name that contains a macro is not expanded again.
 * `{{original}}` expands once, as in SillyTavern: a card repeating it cannot duplicate the replaced prompt.
 */
export function applyMacros(text: string, values: MacroValues): string {
  let originalUsed = false;
  return text.replace(MACRO, (_match, braced: string | undefined, legacy: string | undefined) => {
    const name = (braced ?? legacy ?? '').toLowerCase();
    if (name === 'user') return values.user;
    if (name === 'original') {
      if (originalUsed) return '';
      originalUsed = true;
      return values.original ?? '';
    }
    return values.char;
  });
}

/** `{{char}}` is the V3 `nickname` when the card has one, else its `name` (spec v3). */
export function characterNameForMacros(card: CharacterCard): string {
  const nickname = card.spec === 'chara_card_v3' ? card.data.nickname : undefined;
  return nickname ? nickname : card.data.name;
}
