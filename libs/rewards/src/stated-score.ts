/** What the user said of a reply on one scale: stars, else a thumb (up 5, down 1); null when they said nothing. */
export function statedScore(feedback: { stars?: number | null; thumbs?: number | null }): number | null {
  if (typeof feedback.stars === 'number') return feedback.stars;
  if (feedback.thumbs === 1) return 5;
  if (feedback.thumbs === -1) return 1;
  return null;
}
