/**
 * Best-effort reading of SAGE's generated markdown (Chinese): the persona's `* 姓名：…` bullets and the scene's
 * headed sections. Anything not found is left empty; the caller keeps the whole markdown too.
 */

export interface SagePlayer {
  name: string;
  age: number | undefined;
  gender: string;
  occupation: string;
  hobbies: string[];
  habits: string;
  speakingStyle: string;
  speakingManner: string;
}

export interface SageScene {
  background: string;
  conflict: string;
  difficulties: string;
  currentState: string;
  reactions: { high: string; medium: string; low: string };
  raisesEmotion: string;
  lowersEmotion: string;
}

const clean = (line: string): string => line.replace(/\*\*/g, '').trim();

/** `* 标签：值` → [标签, 值]; `null` for other lines. */
function bullet(line: string): [string, string] | null {
  const match = /^\s*[*-]\s*([^：:*]{1,12})[：:]\s*(.*)$/.exec(line.replace(/\*\*/g, ''));
  return match ? [(match[1] ?? '').trim(), (match[2] ?? '').trim()] : null;
}

export function parseSagePlayer(markdown: string): SagePlayer {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of markdown.split(/\r?\n/)) {
    const field = bullet(line);
    if (field) {
      current = [field[1]].filter(Boolean);
      sections.set(field[0], current);
    } else if (current && line.trim()) current.push(line.trim());
  }
  const get = (label: string) => (sections.get(label) ?? []).join('\n').trim();
  const hobbies = (sections.get('个人爱好') ?? [])
    .map((item) => item.replace(/^\d+[.、)]\s*/, '').trim())
    .filter(Boolean);
  return {
    name: get('姓名'),
    age: parseAge(get('年龄')),
    gender: normaliseGender(get('性别')),
    occupation: get('职业'),
    hobbies,
    habits: get('习惯和行为特点'),
    speakingStyle: get('说话风格'),
    speakingManner: get('说话方式'),
  };
}

const DIGITS: Record<string, number> = {
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};

/** "23岁" → 23; also small Chinese numerals ("三十五岁" → 35). */
export function parseAge(text: string): number | undefined {
  const arabic = /\d{1,3}/.exec(text);
  if (arabic) return Number(arabic[0]);
  const chinese = /([一二两三四五六七八九]?)(十?)([一二三四五六七八九]?)/.exec(text);
  if (!chinese || !chinese[0]) return undefined;
  const [, tens = '', ten = '', units = ''] = chinese;
  if (!ten) return DIGITS[tens];
  return (tens ? (DIGITS[tens] ?? 1) : 1) * 10 + (DIGITS[units] ?? 0);
}

function normaliseGender(text: string): string {
  if (/女/.test(text)) return 'female';
  if (/男/.test(text)) return 'male';
  return text;
}

/** A passive speaking manner: waits to be drawn in rather than starting topics. */
export function isPassiveManner(manner: string): boolean {
  return /被动|不太主动|较少主动|很少主动|不会主动|不主动|不善于主动/.test(manner);
}

type SceneKey =
  | 'background'
  | 'conflict'
  | 'difficulties'
  | 'currentState'
  | 'high'
  | 'medium'
  | 'low'
  | 'raises'
  | 'lowers'
  | 'other';

// Order matters: "NPC的回复贴合隐藏主题（emotion上升）" must read as `raises`, not as a reaction level.
const HEADING_KEYS: [RegExp, SceneKey][] = [
  [/贴合|上升/, 'raises'],
  [/偏离|下降/, 'lowers'],
  [/emotion\s*高|情绪高/i, 'high'],
  [/emotion\s*低|情绪低/i, 'low'],
  [/emotion\s*(一般|中)|情绪一般/i, 'medium'],
  [/隐藏主题|反应|影响/, 'other'],
  [/冲突/, 'conflict'],
  [/困难/, 'difficulties'],
  [/当前状态/, 'currentState'],
  [/起因|经过|背景/, 'background'],
];

function isHeading(line: string): boolean {
  const trimmed = line.trim();
  if (/^#/.test(trimmed) || /^([*-]|\d+\.)?\s*\*\*/.test(trimmed)) return true;
  return /[：:]$/.test(clean(trimmed).replace(/^([*-]|\d+\.)\s*/, ''));
}

function headingKey(line: string): SceneKey | undefined {
  const label = clean(line).split(/[：:]/)[0] ?? '';
  return HEADING_KEYS.find(([pattern]) => pattern.test(label))?.[1];
}

/**
 * Splits the scene at headings and files each section under a key. A section runs to the next heading with a
 * different key or to the next `#` heading; unrecognised sub-headings stay inside the current section.
 */
export function parseSageScene(markdown: string): SageScene {
  const body = markdown.split(/#+\s*隐藏主题/)[0] ?? markdown;
  const parts: Record<SceneKey, string[]> = {
    background: [],
    conflict: [],
    difficulties: [],
    currentState: [],
    high: [],
    medium: [],
    low: [],
    raises: [],
    lowers: [],
    other: [],
  };
  let key: SceneKey | undefined;
  for (const line of body.split(/\r?\n/)) {
    if (isHeading(line)) {
      const next = headingKey(line);
      if (next) key = next;
      else if (/^\s*#/.test(line)) key = undefined;
    }
    if (key && line.trim()) parts[key].push(clean(line));
  }
  const join = (k: SceneKey) => parts[k].join('\n').trim();
  return {
    background: join('background') || body.trim(),
    conflict: join('conflict'),
    difficulties: join('difficulties'),
    currentState: join('currentState'),
    reactions: { high: join('high'), medium: join('medium'), low: join('low') },
    raisesEmotion: join('raises'),
    lowersEmotion: join('lowers'),
  };
}
