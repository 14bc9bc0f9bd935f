import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSyncFn } from 'synckit';

const ROOT = path.resolve(__dirname, '..');
const env = { ...process.env, NX_DAEMON: 'false' };

interface ProjectGraph {
  graph: {
    nodes: Record<string, { data: { tags?: string[] } }>;
    dependencies: Record<string, { target: string }[]>;
  };
}

interface LintMessage {
  ruleId: string | null;
  message: string;
}

const lintInWorker = createSyncFn<(cwd: string, file: string, source: string) => Promise<LintMessage[]>>(
  path.join(__dirname, 'lint-worker.mjs'),
);

/** Lints source text as if it were the file at `file`, with the repo's ESLint configuration. */
const lint = (file: string, source: string): LintMessage[] => lintInWorker(ROOT, file, source);

/** The first word of each no-restricted-syntax message lint gives `source` as the file at `file`. */
const restrictedSyntax = (file: string, source: string) =>
  lint(file, source)
    .filter((m) => m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message.split(' ')[0]);

const boundaryError = expect.objectContaining({ ruleId: '@nx/enforce-module-boundaries' });

describe('architecture', () => {
  it('the Nx graph has apps depending only on libs', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'graph-')), 'graph.json');
    execFileSync(process.execPath, [require.resolve('nx/bin/nx'), 'graph', `--file=${file}`], {
      cwd: ROOT,
      env,
      stdio: 'pipe',
    });
    const { graph } = JSON.parse(readFileSync(file, 'utf8')) as ProjectGraph;
    const apps = Object.keys(graph.nodes).filter((name) =>
      graph.nodes[name]?.data.tags?.includes('type:app'),
    );
    expect(apps.sort()).toEqual(['chat-gateway', 'eval-runner', 'reward-labeller', 'rl-orchestrator']);
    for (const app of apps) {
      const targets = (graph.dependencies[app] ?? []).map((d) => d.target).filter((t) => graph.nodes[t]);
      expect(targets).toContain('platform');
      for (const target of targets) expect(graph.nodes[target]?.data.tags).not.toContain('type:app');
    }
  }, 60_000);

  it('lint fails when an app imports another app', () => {
    expect(
      lint('apps/chat-gateway/src/x.ts', "export { SERVICE } from '../../reward-labeller/src/app.module';\n"),
    ).toContainEqual(boundaryError);
  }, 60_000);

  it('lint fails when a lib imports a lib it may not use', () => {
    expect(
      lint('libs/contracts/src/x.ts', "export { EventPublisher } from '@echoloop/platform';\n"),
    ).toContainEqual(boundaryError);
  }, 60_000);

  it("the gate's one-program typecheck (tsconfig.typecheck.json) holds every project but the web app's own", () => {
    const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));
    const covered = new Set<string>(readJson('tsconfig.typecheck.json').include);
    const projects = execFileSync('git', ['ls-files', '*project.json'], { cwd: ROOT })
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((file) => path.dirname(file))
      .filter((dir) => dir !== 'apps/web');
    expect(projects.length).toBeGreaterThan(20);
    for (const dir of projects) {
      const tsconfig = readJson(path.join(dir, 'tsconfig.json'));
      // Only the shared options: one program with them checks each project as its own tsconfig would.
      expect({ dir, options: tsconfig.compilerOptions }).toEqual({ dir, options: undefined });
      for (const glob of tsconfig.include as string[]) {
        const where = `${dir}/${glob}`;
        const wildcard = where.replace(/^([^/]+)\/[^/]+\//, '$1/*/');
        expect({ where, covered: covered.has(where) || covered.has(wildcard) }).toEqual({
          where,
          covered: true,
        });
      }
    }
  });

  it('lint fails when a service injects the database instead of using a repository', () => {
    const service = (from: string) =>
      `import { Injectable } from '@nestjs/common';\n${from}\n@Injectable()\nexport class X {}\n`;
    const restricted = expect.objectContaining({ ruleId: '@typescript-eslint/no-restricted-imports' });
    expect(
      lint(
        'apps/chat-gateway/src/x/x.service.ts',
        service("import { InjectDataSource } from '@nestjs/typeorm';"),
      ),
    ).toContainEqual(restricted);
    expect(
      lint('apps/reward-labeller/src/x/x.service.ts', service("import { DataSource } from 'typeorm';")),
    ).toContainEqual(restricted);
    expect(
      lint(
        'apps/chat-gateway/src/x/x.repository.ts',
        service("import { InjectDataSource } from '@nestjs/typeorm';"),
      ),
    ).not.toContainEqual(restricted);
  }, 60_000);

  it('lint fails when SQL runs outside a repository, or an outbox row is written past the outbox writer', () => {
    const source = [
      'type Db = { query(sql: string): unknown; manager: { transaction(work: () => void): unknown } };',
      "export const read = (db: Db) => db.query('SELECT 1');",
      'export const inTransaction = (db: Db) => db.manager.transaction(() => undefined);',
      "export const announce = (db: Db) => db.query(`INSERT INTO outbox (topic) VALUES ('t')`);",
      '',
    ].join('\n');
    const messages = (file: string) => restrictedSyntax(file, source);
    // In a service: the SQL (twice), the manager, and the outbox row.
    expect(messages('apps/chat-gateway/src/x/x.service.ts').sort()).toEqual(['An', 'Outbox', 'SQL', 'SQL']);
    // In a repository only the outbox row, anywhere but the writer.
    expect(messages('apps/chat-gateway/src/x/x.repository.ts')).toEqual(['Outbox']);
    expect(messages('libs/persistence/src/x.ts')).toEqual(['Outbox']);
    expect(messages('libs/platform/src/outbox/outbox-writer.ts')).toEqual([]);
  }, 60_000);

  it('lint fails when a label is written past the one writer, or a turn finished past LabelStore.finish', () => {
    const source = [
      'type Db = { query(sql: string): unknown };',
      "export const label = (db: Db) => db.query(`INSERT INTO reward_labels (turn_id) VALUES ('t')`);",
      "export const finish = (db: Db) => db.query(`UPDATE reward_turns SET labelled_versions = array_append(labelled_versions, 'v')`);",
      '',
    ].join('\n');
    const messages = (file: string) => restrictedSyntax(file, source).sort();
    expect(messages('apps/reward-labeller/src/labelling/backfill.repository.ts')).toEqual(['A', 'Reward']);
    expect(messages('libs/persistence/src/x.ts')).toEqual(['A', 'Reward']);
    expect(messages('apps/reward-labeller/src/labelling/labels.repository.ts')).toEqual(['A']);
    expect(messages('apps/reward-labeller/src/labelling/label-store.ts')).toEqual(['Reward']);
  }, 60_000);

  it('lint fails on a hand-made periodic loop or retry backoff, outside the one scheduler', () => {
    const source = [
      'export const poll = (run: () => void) => setInterval(run, 1_000);',
      'export const wait = (attempt: number) => 100 * 2 ** attempt;',
      'export const next = (backoff: number) => Math.min(Math.max(backoff * 2, 200), 5_000);',
      'export const WORDS = 2 ** 32;',
      '',
    ].join('\n');
    const messages = (file: string) => restrictedSyntax(file, source);
    expect(messages('apps/reward-labeller/src/x/x.service.ts')).toEqual(['Periodic', 'Retry', 'Retry']);
    expect(messages('libs/llm/src/x.ts')).toEqual(['Periodic', 'Retry', 'Retry']);
    expect(messages('libs/platform/src/scheduling/x.ts')).toEqual([]);
  }, 60_000);

  it('lint fails on a hand-made HTTP call to another part, outside the HTTP layer and the model clients', () => {
    const source = 'export const get = (url: string) => fetch(url).then((r) => r.json());\n';
    const fetches = (file: string) =>
      lint(file, source).filter((m) => m.ruleId === 'no-restricted-globals').length;
    expect(fetches('apps/rl-orchestrator/src/clients/x.client.ts')).toBe(1);
    expect(fetches('tools/rl-loop/src/x.ts')).toBe(1);
    expect(fetches('libs/datasets/src/x.ts')).toBe(1);
    expect(fetches('libs/platform/src/http/x.ts')).toBe(0);
    expect(fetches('libs/llm/src/client/x.ts')).toBe(0);
  }, 60_000);

  it("the import check fails on a circle (type-only too), an import up an app's floors, a part with no floor; passes the tree", () => {
    const depcruise = (...paths: string[]) => {
      try {
        execFileSync(
          process.execPath,
          [
            path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
            '--config',
            '.dependency-cruiser.cjs',
            '--output-type',
            'err',
            ...paths,
          ],
          { cwd: ROOT, stdio: 'pipe', env },
        );
        return '';
      } catch (error) {
        return String((error as { stdout?: Buffer }).stdout ?? 'failed');
      }
    };
    const dir = path.join(ROOT, 'libs/llm/src', `circle-${process.pid}`);
    mkdirSync(dir);
    try {
      writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = { b?: B };\n");
      writeFileSync(path.join(dir, 'b.ts'), "import type { A } from './a';\nexport type B = { a?: A };\n");
      expect(depcruise(path.relative(ROOT, dir))).toMatch(/no-circular: .*a\.ts/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // An import up a floor inside an app, and a part of an app with no floor.
    const up = path.join(ROOT, 'apps/chat-gateway/src/common', `up-${process.pid}.ts`);
    const stray = path.join(ROOT, 'apps/chat-gateway/src', `stray-${process.pid}`);
    mkdirSync(stray);
    try {
      writeFileSync(up, "export { TurnService } from '../chat/turn.service';\n");
      writeFileSync(path.join(stray, 'x.ts'), "export { GATEWAY_ENV } from '../env';\n");
      expect(depcruise(path.relative(ROOT, up))).toMatch(
        /no-import-up: .*common\/up-\d+\.ts → .*chat\/turn\.service\.ts/,
      );
      expect(depcruise(path.relative(ROOT, stray))).toMatch(/floor-unknown: .*stray-\d+\/x\.ts/);
    } finally {
      rmSync(up, { force: true });
      rmSync(stray, { recursive: true, force: true });
    }
    expect(depcruise('apps', 'libs', 'tools', 'test', 'bench')).toBe('');
  }, 60_000);

  it('every project may use the shared vocabulary, the web app nothing else, the vocabulary no other lib', () => {
    const vocabulary = "export { RL_JOB_STATUSES } from '@echoloop/vocabulary';\n";
    for (const file of [
      'apps/web/src/x.ts',
      'libs/persistence/src/x.ts',
      'libs/rewards/src/x.ts',
      'tools/rl-loop/src/x.ts',
    ])
      expect(lint(file, vocabulary)).toEqual([]);
    expect(lint('apps/web/src/x.ts', "export { TOPICS } from '@echoloop/contracts';\n")).toContainEqual(
      boundaryError,
    );
    expect(
      lint('libs/vocabulary/src/x.ts', "export { TOPICS } from '@echoloop/contracts';\n"),
    ).toContainEqual(boundaryError);
  }, 60_000);

  it('lint fails on a production source file over 350 lines, not on a test', () => {
    const long = Array.from({ length: 351 }, (_, i) => `export const line${i} = ${i};`).join('\n') + '\n';
    const maxLines = expect.objectContaining({ ruleId: 'max-lines' });
    expect(lint('apps/chat-gateway/src/x/x.service.ts', long)).toContainEqual(maxLines);
    expect(lint('apps/web/src/pages/X.tsx', long)).toContainEqual(maxLines);
    expect(lint('apps/chat-gateway/src/x/x.service.spec.ts', long)).not.toContainEqual(maxLines);
  }, 60_000);

  it('lint accepts an app importing a lib', () => {
    expect(lint('apps/chat-gateway/src/x.ts', "export { TOPICS } from '@echoloop/contracts';\n")).toEqual([]);
  }, 60_000);
});
