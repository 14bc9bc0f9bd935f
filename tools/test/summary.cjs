#!/usr/bin/env node
// Sums every gate and Jest suite of a test run (tools/test/run-all.sh) into one table and the closing line
// `tests: N passed, N failed`; exits non-zero when anything failed or nothing ran.
const fs = require('node:fs');
const path = require('node:path');

const dir = process.argv[2] ?? '.infra/test-results';
const rows = [];

for (const file of fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.gate'))
  .sort()) {
  const ok = fs.readFileSync(path.join(dir, file), 'utf8').trim() === 'pass';
  rows.push({ suite: `gate ${path.basename(file, '.gate')}`, passed: ok ? 1 : 0, failed: ok ? 0 : 1 });
}

const suiteKind = (file) =>
  file.endsWith('.outage-spec.ts') ? 'disruptive' : file.endsWith('.int-spec.ts') ? 'integration' : 'unit';
const reports = fs.readdirSync(dir).filter((f) => /^jest.*\.json$/.test(f));
if (reports.length === 0) rows.push({ suite: 'jest (no report)', passed: 0, failed: 1 });
const byKind = new Map();
// Why each test failed, shown above the table: CI keeps only the end of a run's output.
const failures = [];
const excerpt = (text) =>
  text
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => !/^\s+at .*(node_modules|node:internal)/.test(line))
    .slice(0, 30)
    .join('\n');
for (const file of reports) {
  const report = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  for (const suite of report.testResults) {
    const kind = suiteKind(suite.name);
    const row = byKind.get(kind) ?? { suite: `jest ${kind}`, passed: 0, failed: 0 };
    const name = path.relative(process.cwd(), suite.name);
    for (const test of suite.assertionResults) {
      if (test.status === 'passed') row.passed++;
      else if (test.status === 'failed') {
        row.failed++;
        failures.push(`${name} › ${test.fullName}\n${excerpt(test.failureMessages.join('\n'))}`);
      }
    }
    // A suite that failed to load has no assertions but must still count as a failure.
    if (suite.status === 'failed' && suite.assertionResults.every((t) => t.status !== 'failed')) {
      row.failed++;
      failures.push(`${name}\n${excerpt(suite.message ?? '')}`);
    }
    byKind.set(kind, row);
  }
}
rows.push(...[...byKind.values()].sort((a, b) => a.suite.localeCompare(b.suite)));

// The Python packages' tests (tools/python/check.sh test): pytest's JUnit report, its subtests counted as tests.
const pytest = path.join(dir, 'pytest.xml');
if (!fs.existsSync(pytest)) rows.push({ suite: 'pytest (no report)', passed: 0, failed: 1 });
else {
  const suite = /<testsuite\b([^>]*)>/.exec(fs.readFileSync(pytest, 'utf8'))?.[1] ?? '';
  const count = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? 0);
  const failed = count('failures') + count('errors');
  const passed = count('tests') - failed - count('skipped');
  rows.push({ suite: 'pytest', passed, failed: suite ? failed : 1 });
}

const total = rows.reduce((sum, r) => ({ passed: sum.passed + r.passed, failed: sum.failed + r.failed }), {
  passed: 0,
  failed: 0,
});
const width = Math.max(...rows.map((r) => r.suite.length));
for (const failure of failures) console.log(`\n✕ ${failure}`);
console.log('');
for (const r of rows)
  console.log(`${r.suite.padEnd(width)}  ${String(r.passed).padStart(4)} passed  ${r.failed} failed`);
console.log(`tests: ${total.passed} passed, ${total.failed} failed`);
process.exit(total.failed === 0 && total.passed > 0 ? 0 : 1);
