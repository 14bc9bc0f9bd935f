/** The configured reward of a label; throws on a label the map does not hold (the parser only returns known ones). */
export function labelLevel(levels: Readonly<Record<string, number>>, label: string, what: string): number {
  const level = Object.hasOwn(levels, label) ? levels[label] : undefined;
  if (level === undefined) throw new Error(`unknown ${what} label "${label}"`);
  return level;
}
