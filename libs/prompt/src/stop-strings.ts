/**
 * vLLM takes any number of stop strings, OpenAI's API at most 4; each one is checked after every generated token,
 * so we keep the list short. The checkpoint's own strings come first and are never dropped.
 */
export const MAX_STOP_STRINGS = 16;

/** Generic speaker labels a model uses when it starts writing the user's side of a transcript. */
const GENERIC_USER_LABELS = ['You', 'User'];

export interface StopStringInput {
  /** The user's display name, as `{{user}}` in the prompt. */
  userName: string;
  /** The character's name, as `{{char}}` in the prompt. */
  characterName: string;
  /** The checkpoint's own `decoding.stop`. */
  checkpointStop?: readonly string[];
}

/**
 * Stop strings that keep a reply from speaking for the user, as SillyTavern does with `\n{{user}}:`: a new line
 * that starts with the user's name (or "You:"/"User:") is the model writing the user's turn, and a new line that
 * starts with the character's own name is the model writing a transcript of further turns.
 */
export function buildStopStrings({
  userName,
  characterName,
  checkpointStop = [],
}: StopStringInput): string[] {
  const speakers = [userName, ...GENERIC_USER_LABELS, characterName]
    .map(speakerLabel)
    .filter((name) => name.length > 0);
  const defaults = speakers.map((name) => `\n${name}:`);
  const unique = [...new Set([...checkpointStop.filter((stop) => stop.length > 0), ...defaults])];
  return unique.slice(0, Math.max(MAX_STOP_STRINGS, checkpointStop.length));
}

/** A name as it would open a line of a transcript: one line, no surrounding spaces, no trailing colon. */
function speakerLabel(name: string): string {
  return name.replace(/\s+/g, ' ').trim().replace(/:+$/, '').trim();
}

/**
 * The reply a stop-honouring server returns, as vLLM decides it: the stop string that completes first ends
 * the text, which keeps everything before where it starts.
 */
export function cutAtFirstStop(text: string, stops: readonly string[]): string {
  const match = firstCompletedStop(text, stops);
  return match ? text.slice(0, match.start) : text;
}

export function firstCompletedStop(
  text: string,
  stops: readonly string[],
): { start: number; end: number } | undefined {
  let first: { start: number; end: number } | undefined;
  for (const stop of stops) {
    if (!stop) continue;
    const start = text.indexOf(stop);
    if (start === -1) continue;
    const end = start + stop.length;
    if (!first || end < first.end || (end === first.end && start < first.start)) first = { start, end };
  }
  return first;
}
