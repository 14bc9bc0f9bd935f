// What following the account costs per request, seen from outside: the same admin-only route called
//   - without a token (401 before any verification: the HTTP stack alone, the baseline),
//   - with a user's token (403: HS256 verified, the account's current roles and session read from the per-user
//     cache, the role refused: the usual case),
//   - with the token of a session that was signed out (401: the cache does not know the session, so the account is
//     read again from PostgreSQL, one query: the cost of a check after a change).
// Requests go one at a time over a kept-alive connection, targets interleaved. Prints a table and writes
// bench/results/session-check.json.
//
//   npm run bench:sessions -- [--requests 3000] [--users 50]
//
// Needs the local stack's PostgreSQL and Kafka: tools/stack/stack.sh up postgres kafka.
import { createTestDatabase, startApp } from '@echoloop/testing';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { round, summarize, type Summary } from './stats';
import { ROOT, writeBenchResult } from './bench-env';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '3000' }, users: { type: 'string', default: '50' } },
});
const REQUESTS = Number(values.requests);
const USERS = Number(values.users);
const ROUTE = '/v1/users';

/** Well-formed, signed with another key: refused after the HS256 check, before any account lookup. */
const FORGED =
  'eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiIwMDAwMDAwMC0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwMDAiLCJzdWIiOiIwMDAwMDAwMC0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwMDAiLCJpc3MiOiJlY2hvbG9vcCIsImlhdCI6MTc2NDAwMDAwMCwiZXhwIjo0MTAwMDAwMDAwfQ.' +
  'c2lnbmVkLXdpdGgtYW5vdGhlci1rZXktMDAwMDAwMDAwMDA';
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_sessions');
  const env = { ...process.env, DATABASE_URL: db.url, SWC_NODE_PROJECT: 'tsconfig.base.json' };
  execFileSync(process.execPath, ['tools/typeorm-cli.cjs', 'migration:run'], {
    cwd: ROOT,
    env,
    stdio: 'ignore',
  });
  const gateway = await startApp('chat-gateway', {
    DATABASE_URL: db.url,
    AUTH_ATTEMPTS_PER_MINUTE: '100000',
    AUTH_ACCOUNT_ATTEMPTS_PER_MINUTE: '100000',
  });
  try {
    const call = async (pathname: string, token?: string, body?: unknown) => {
      const res = await fetch(`${gateway.url}${pathname}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, string>) : {} };
    };

    log(`signing in ${USERS} users, each with a live session and a signed-out one`);
    const users: { live: string; ended: string }[] = [];
    for (let i = 0; i < USERS; i++) {
      const credentials = { email: `bench-${i}@example.com`, password: 'a good passphrase' };
      const registered = await call('/v1/auth/register', undefined, { ...credentials, displayName: `B${i}` });
      const live = registered.body['accessToken'];
      const ended = (await call('/v1/auth/login', undefined, credentials)).body['accessToken'];
      const logout = await call('/v1/auth/logout', ended, {});
      if (!live || !ended || logout.status !== 204) throw new Error(`sign-in failed: ${logout.status}`);
      users.push({ live, ended });
    }

    const targets = {
      'no token (baseline)': { token: () => undefined, status: 401 },
      'forged token (signature checked)': { token: () => FORGED, status: 401 },
      'token, account state cached': { token: (i: number) => users[i % USERS]!.live, status: 403 },
      'token of an ended session (1 query)': { token: (i: number) => users[i % USERS]!.ended, status: 401 },
    };
    const micros = new Map<string, number[]>(Object.keys(targets).map((name) => [name, []]));
    const measureOnce = async (i: number, record: boolean) => {
      for (const [name, target] of Object.entries(targets)) {
        const start = process.hrtime.bigint();
        const { status } = await call(ROUTE, target.token(i));
        const us = Number(process.hrtime.bigint() - start) / 1_000;
        if (status !== target.status) throw new Error(`${name}: expected ${target.status}, got ${status}`);
        if (record) micros.get(name)!.push(us);
      }
    };
    for (let i = 0; i < Math.min(500, REQUESTS); i++) await measureOnce(i, false); // warm-up (JIT, pool)
    for (let i = 0; i < REQUESTS; i++) {
      await measureOnce(i, true);
      if ((i + 1) % 1_000 === 0) log(`${i + 1}/${REQUESTS} rounds`);
    }

    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    log(
      metrics
        .split('\n')
        .filter((line) => line.startsWith('auth_account_state_lookups_total'))
        .join('; '),
    );
    const rows = [...micros].map(([name, values]) => [name, summarize(values)] as [string, Summary]);
    const baseline = rows[0]![1];
    const overhead = (s: Summary) => ({ p50: round(s.p50 - baseline.p50), p99: round(s.p99 - baseline.p99) });
    const header = `| ${'request'.padEnd(36)} | ${'p50 µs'.padStart(8)} | ${'p99 µs'.padStart(8)} | ${'+p50 µs'.padStart(8)} |`;
    const table = [
      `\n${ROUTE} one request at a time, ${REQUESTS} rounds over ${USERS} users`,
      header,
      `|${'-'.repeat(38)}|${'-'.repeat(10)}|${'-'.repeat(10)}|${'-'.repeat(10)}|`,
      ...rows.map(
        ([name, s]) =>
          `| ${name.padEnd(36)} | ${String(s.p50).padStart(8)} | ${String(s.p99).padStart(8)} | ${String(overhead(s).p50).padStart(8)} |`,
      ),
      '',
    ].join('\n');
    process.stdout.write(table);
    const result = {
      bench: 'session-check',
      route: ROUTE,
      rounds: REQUESTS,
      users: USERS,
      microseconds: Object.fromEntries(
        rows.map(([name, s]) => [name, { ...s, overVsBaseline: overhead(s) }]),
      ),
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    writeBenchResult('session-check.json', result, table);
  } finally {
    await gateway.stop();
    await db.drop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
