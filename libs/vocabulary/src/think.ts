/** The tags a reasoning model wraps its hidden thinking in. */
export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';

/**
 * Drops reasoning markup from a model's output: whole `<think>…</think>` blocks, everything before a stray `</think>`
 * (servers that strip the opening tag) and everything after an unclosed `<think>` (cut off mid-thought).
 */
export function stripThink(text: string): string {
  let out = text.replace(/<think>[\s\S]*?<\/think>/gi, '');
  const close = out.toLowerCase().lastIndexOf('</think>');
  if (close >= 0) out = out.slice(close + '</think>'.length);
  const open = out.toLowerCase().indexOf('<think>');
  if (open >= 0) out = out.slice(0, open);
  return out;
}
