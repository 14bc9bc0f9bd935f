// Recall and precision of the export redaction on the test set data/redaction/cases.jsonl (tricky cases included:
// numbers that are not phones, names that are common words, PII split across punctuation), per kind:
//   npm run eval:redaction
import { redact } from '@echoloop/datasets';
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface Case {
  text: string;
  pii: { kind: string; value: string }[];
}

const cases = readFileSync(path.resolve(__dirname, '../../../data/redaction/cases.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Case);

// Recall: expected values gone from the output. Precision: placeholders of a kind in cases expecting that kind,
// over all placeholders of the kind (one value may take two, a street and its postcode).
const stats = new Map<string, { expected: number; recalled: number; found: number; wrong: number }>();
const of = (kind: string) => {
  const known = stats.get(kind);
  if (known) return known;
  const fresh = { expected: 0, recalled: 0, found: 0, wrong: 0 };
  stats.set(kind, fresh);
  return fresh;
};
let falsePositives = 0;
for (const c of cases) {
  const { text, found } = redact(c.text);
  for (const pii of c.pii) {
    of(pii.kind).expected += 1;
    if (!text.includes(pii.value)) of(pii.kind).recalled += 1;
  }
  for (const kind of found) {
    of(kind).found += 1;
    if (!c.pii.some((pii) => pii.kind === kind)) of(kind).wrong += 1;
  }
  if (c.pii.length === 0) falsePositives += found.length;
}
const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${Math.round((a / b) * 100)}%`);
const rows = [...stats].sort().map(([kind, s]) => {
  return `| ${kind} | ${s.expected} | ${pct(s.recalled, s.expected)} | ${s.found} | ${pct(s.found - s.wrong, s.found)} |`;
});
process.stdout.write(
  [
    `redaction on ${cases.length} cases (${cases.filter((c) => c.pii.length === 0).length} without PII)`,
    '| kind | expected | recall | found | precision |',
    '|---|---|---|---|---|',
    ...rows,
    `false positives on text without PII: ${falsePositives}`,
    '',
  ].join('\n'),
);
