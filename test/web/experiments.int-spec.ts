import AxeBuilder from '@axe-core/playwright';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startChatFixture, type ChatFixture } from '../chat/chat-fixture';

const ROOT = path.resolve(__dirname, '../..');
const WEB_SRC = path.join(ROOT, 'apps/web');
const WEB_DIST = path.join(ROOT, 'dist/apps/web');
const PASSWORD = 'a good passphrase';

/** The newest modification time under a folder (files only). */
function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const full = path.join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }, 0);
}

/** Builds the web app when dist is missing or older than its sources. */
function ensureWebBuild(): void {
  const index = path.join(WEB_DIST, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newest(WEB_SRC)) return;
  execFileSync('npx', ['vite', 'build', '--config', 'apps/web/vite.config.mts', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

describe('web app: experiments in the browser', () => {
  let fixture: ChatFixture;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const failedResponses: string[] = [];

  beforeAll(async () => {
    ensureWebBuild();
    const executablePath = execFileSync('bash', [path.join(ROOT, 'tools/web/chromium.sh')], {
      encoding: 'utf8',
    }).trim();
    fixture = await startChatFixture({ WEB_DIST_DIR: WEB_DIST });
    browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        consoleErrors.push(message.text());
      }
    });
    page.on('response', (res) => {
      const noAvatar = res.status() === 404 && /\/v1\/characters\/[0-9a-f-]{36}\/avatar$/.test(res.url());
      if (res.status() >= 400 && !noAvatar) failedResponses.push(`${res.status()} ${res.url()}`);
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  /** Phone-width and desktop screenshots of the page as it is, for docs/images (only with WEB_SCREENSHOTS=1). */
  async function screenshots(name: string): Promise<void> {
    if (process.env['WEB_SCREENSHOTS'] !== '1') return;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(ROOT, `docs/images/web-${name}-phone.png`) });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(ROOT, `docs/images/web-${name}.png`), fullPage: true });
  }

  async function expectAccessible(): Promise<void> {
    const axe = await new AxeBuilder({ page }).analyze();
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  }

  /** A new account with these roles; returns its email and an access token. */
  async function account(roles: string[]): Promise<{ email: string; token: string }> {
    const email = `exp-${roles.join('-')}-${Date.now()}@example.com`;
    const res = await fixture.http(undefined, 'POST', '/v1/auth/register', {
      email,
      password: PASSWORD,
      displayName: 'Experimenter',
    });
    expect(res.status).toBe(201);
    await fixture.db.query('UPDATE users SET roles = $1 WHERE id = $2', [roles, res.body.userId]);
    const login = await fixture.http(undefined, 'POST', '/v1/auth/login', { email, password: PASSWORD });
    return { email, token: login.body.accessToken };
  }

  async function signIn(email: string): Promise<void> {
    const signOut = page.getByRole('button', { name: 'Sign out' });
    if (page.url().startsWith(fixture.gateway.url) && (await signOut.count()) > 0) {
      await signOut.click();
      await page.waitForURL(/\/sign-in$/);
    } else {
      await page.goto(`${fixture.gateway.url}/sign-in`);
    }
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Me', exact: true })
      .waitFor();
  }

  it('lets an experimenter create, start and read an experiment with its chart', async () => {
    const { email, token } = await account(['user', 'experimenter']);
    // A second checkpoint to test against the default, served by the same fake vLLM.
    const checkpoint = await fixture.http(token, 'POST', '/v1/checkpoints', {
      id: 'candidate-web',
      modelName: 'fake-base-model',
      endpoints: [{ baseUrl: fixture.vllm.url }],
    });
    expect(checkpoint.status).toBe(201);

    await signIn(email);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Experiments' }).click();
    await page.waitForURL(/\/experiments$/);
    await page.getByText('No experiments yet.').waitFor();

    await page.getByLabel('Name').fill('Candidate vs base');
    const treatment = page.getByRole('group', { name: 'Treatment arm 1' });
    await treatment.getByLabel('Checkpoint').selectOption('candidate-web');
    await page.getByLabel('Traffic (% of users)').fill('40');
    await expectAccessible();
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.waitForURL(/\/experiments\/[0-9a-f-]{36}$/);
    const experimentId = /\/experiments\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    await page.getByRole('heading', { name: 'Candidate vs base' }).waitFor();
    await page.locator('.status', { hasText: 'draft' }).waitFor();

    const started = page.waitForResponse((res) => /\/start$/.test(res.url()));
    await page.getByRole('button', { name: 'Start' }).click();
    expect((await started).status()).toBe(200);
    await page.locator('.status', { hasText: 'running' }).waitFor();
    const stored = await fixture.http(token, 'GET', `/v1/experiments/${experimentId}`);
    expect(stored.body).toMatchObject({
      status: 'running',
      audience: { trafficPercent: 40 },
      arms: [
        { id: 'control', checkpointId: 'base', control: true },
        { id: 'treatment', checkpointId: 'candidate-web', control: false },
      ],
    });

    // The labeller keeps these aggregates as it finishes turns; here they are written directly.
    for (const [arm, sum, sumSquares] of [
      ['control', 12, 8],
      ['treatment', 14, 10.6],
    ] as const) {
      await fixture.db.query(
        `INSERT INTO experiment_arm_metrics (experiment_id, arm_id, metric, users, sum, sum_squares, turns)
         VALUES ($1, $2, 'composite', 20, $3, $4, 60)`,
        [experimentId, arm, sum, sumSquares],
      );
    }
    await page.reload();
    const composite = page.locator('section.metric[data-metric="composite"]');
    await composite.locator('svg.diff-chart').waitFor();
    expect(await composite.locator('svg.diff-chart .ci-interval').count()).toBe(1);
    expect(await composite.locator('svg.diff-chart .zero-line').count()).toBe(1);
    expect(await composite.locator('svg.diff-chart').getAttribute('aria-label')).toMatch(
      /treatment: 0\.1 \(95% CI/,
    );
    await composite.getByRole('cell', { name: '0.6', exact: true }).waitFor();
    await page.getByText(/Sample ratio mismatch: p = /).waitFor();
    await expectAccessible();
    await screenshots('experiments');

    // Stopping shows the reason.
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.status', { hasText: 'stopped' }).waitFor();
    await page.getByText('stopped by an experimenter').waitFor();
    await page.getByRole('button', { name: 'Promote treatment' }).waitFor();

    // The list shows it with its status.
    await page.getByRole('link', { name: '← All experiments' }).click();
    await page.getByRole('link', { name: 'Candidate vs base' }).waitFor();
    await page.locator('.status', { hasText: 'stopped' }).waitFor();
    await expectAccessible();
    await screenshots('experiments-list');
    expect(consoleErrors).toEqual([]);
    expect(failedResponses).toEqual([]);
  }, 120_000);

  it('keeps experiments from a plain user', async () => {
    const { email, token } = await account(['user']);
    await signIn(email);
    await page.goto(`${fixture.gateway.url}/experiments`);
    // Shown once the roles are known, so the nav below is settled too.
    await page.getByText('You do not have access').waitFor();
    expect(
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Experiments' }).count(),
    ).toBe(0);
    await expectAccessible();
    expect((await fixture.http(token, 'GET', '/v1/experiments')).status).toBe(403);
    expect((await fixture.http(token, 'GET', '/v1/checkpoints')).status).toBe(403);
    expect(consoleErrors).toEqual([]);
    expect(failedResponses).toEqual([]);
  }, 60_000);
});
