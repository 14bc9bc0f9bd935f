import fc from 'fast-check';

/** Builds JSON with keys an object literal cannot hold as own data (`__proto__`). */
const parsed = (json: string): unknown => JSON.parse(json);

const deep = (depth: number): unknown => parsed(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
const deepArray = (depth: number): unknown => parsed(`${'['.repeat(depth)}${']'.repeat(depth)}`);

/** Strings that have broken servers: NUL, lone surrogates, control characters, huge, traversal, injection. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'name\u0000with nul',
    '\ud800',
    'lone \udfff surrogate',
    '\u0007\u001b[31m',
    '../../../etc/passwd',
    '..\\..\\windows',
    "' OR '1'='1' --",
    '<script>alert(1)</script>',
    '{{constructor.constructor("return process")()}}',
    '',
    ' ',
    'x'.repeat(100_000),
    '😀'.repeat(20_000),
    '2026-13-45T99:99:99Z',
    'NaN',
    '-1',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** Any JSON value a schema'd field should refuse or survive. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileString, weight: 3 },
  {
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      2 ** 53 + 1,
      -(2 ** 31) - 1,
      [],
      {},
      [null],
      ['\u0000'],
      parsed('{"__proto__":{"polluted":true}}'),
      parsed('{"constructor":{"prototype":{"polluted":true}}}'),
      deep(1_000),
      deepArray(1_000),
      Array.from({ length: 10_000 }, (_, i) => i),
    ),
    weight: 2,
  },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
);

/** Whole bodies that are not the object a route expects. */
export const hostileBody: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  null,
  [],
  'a string',
  42,
  parsed('{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}'),
  deep(1_000),
);

/** Path segments for ids: not a uuid, an unknown one, traversal, NUL and encoded lone surrogates. */
export const hostilePathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'not-a-uuid',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '..%2F..%2Fetc%2Fpasswd',
    '..',
    '%00',
    'a%00b',
    '%ED%A0%80',
    '%C0%AF',
    '%',
    'x'.repeat(4_000),
    '__proto__',
    'constructor',
    '1e309',
    '-1',
  ),
  fc.uuid().map((uuid) => uuid),
);

/** Raw requests the body parser sees before any route: bad JSON, wrong or odd content types, bad encodings. */
export interface RawBody {
  label: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

export const RAW_BODIES: RawBody[] = [
  { label: 'invalid JSON', headers: { 'content-type': 'application/json' }, body: '{"a":' },
  {
    label: 'JSON with a NUL escape',
    headers: { 'content-type': 'application/json' },
    body: '{"x":"\\u0000"}',
  },
  {
    label: 'lone surrogate escape',
    headers: { 'content-type': 'application/json' },
    body: '{"x":"\\ud800"}',
  },
  { label: 'text/plain', headers: { 'content-type': 'text/plain' }, body: 'hello' },
  {
    label: 'form',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'a=1&__proto__[x]=1',
  },
  {
    label: 'bad multipart',
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
    body: '--x\r\nbroken',
  },
  {
    label: 'unknown charset',
    headers: { 'content-type': 'application/json; charset=klingon' },
    body: '{}',
  },
  {
    label: 'bad gzip',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02]),
  },
  {
    label: '3 MB of JSON',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ x: 'y'.repeat(3 * 1024 * 1024) }),
  },
];
