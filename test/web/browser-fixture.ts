import AxeBuilder from '@axe-core/playwright';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startChatFixture, type ChatFixture } from '../chat/chat-fixture';

const ROOT = path.resolve(__dirname, '../..');
const WEB_SRC = path.join(ROOT, 'apps/web');
// WEB_TEST_DIST gives a run its own build folder, so parallel runs never rebuild one another's files.
const WEB_DIST = process.env['WEB_TEST_DIST'] ?? path.join(ROOT, 'dist/apps/web');
export const PASSWORD = 'a good passphrase';

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
  execFileSync(
    'npx',
    [
      'vite',
      'build',
      '--config',
      'apps/web/vite.config.mts',
      '--outDir',
      WEB_DIST,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}

/** The gateway serving the built web app (chat fixture, scripted model) and one headless Chromium page on it. */
export interface BrowserFixture {
  fixture: ChatFixture;
  page: Page;
  /** No console error and no failed request (a character's missing avatar aside) so far. */
  expectNoPageErrors(): void;
  /** No serious or critical axe violations on the page as it is now. */
  expectAccessible(): Promise<void>;
  /** A new account with these roles (email and password sign-in); returns its email and an access token. */
  account(roles: string[]): Promise<{ email: string; token: string }>;
  /** Signs in through the page (signing out whoever is signed in) and waits for the main nav. */
  signIn(email: string): Promise<void>;
  /** Phone-width and desktop screenshots for docs/images (only with WEB_SCREENSHOTS=1). */
  screenshots(name: string, options?: { fullPage?: boolean }): Promise<void>;
  close(): Promise<void>;
}

/** `env`: the gateway's extra variables (e.g. the staff services it forwards to). */
export async function startBrowserFixture(env: Record<string, string> = {}): Promise<BrowserFixture> {
  ensureWebBuild();
  const executablePath = execFileSync('bash', [path.join(ROOT, 'tools/web/chromium.sh')], {
    encoding: 'utf8',
  }).trim();
  const fixture = await startChatFixture({ ...env, WEB_DIST_DIR: WEB_DIST });
  const browser: Browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const consoleErrors: string[] = [];
  const failedResponses: string[] = [];
  // A failed request is logged as a console error without its address: those are checked by response instead.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      consoleErrors.push(message.text());
    }
  });
  page.on('response', (res) => {
    // A character without a picture has no avatar (404): the page shows its initial instead.
    const noAvatar = res.status() === 404 && /\/v1\/characters\/[0-9a-f-]{36}\/avatar$/.test(res.url());
    if (res.status() >= 400 && !noAvatar) failedResponses.push(`${res.status()} ${res.url()}`);
  });
  let accounts = 0;
  return {
    fixture,
    page,
    async account(roles) {
      const email = `web-${roles.join('-')}-${Date.now()}-${++accounts}@example.com`;
      const res = await fixture.http(undefined, 'POST', '/v1/auth/register', {
        email,
        password: PASSWORD,
        displayName: 'Tester',
      });
      expect(res.status).toBe(201);
      await fixture.db.query('UPDATE users SET roles = $1 WHERE id = $2', [roles, res.body.userId]);
      const login = await fixture.http(undefined, 'POST', '/v1/auth/login', { email, password: PASSWORD });
      return { email, token: login.body.accessToken };
    },
    async signIn(email) {
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
    },
    expectNoPageErrors() {
      expect(consoleErrors).toEqual([]);
      expect(failedResponses).toEqual([]);
    },
    async expectAccessible() {
      const axe = await new AxeBuilder({ page }).analyze();
      const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    },
    async screenshots(name, options = {}) {
      if (process.env['WEB_SCREENSHOTS'] !== '1') return;
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: path.join(ROOT, `docs/images/web-${name}-phone.png`) });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.screenshot({
        path: path.join(ROOT, `docs/images/web-${name}.png`),
        fullPage: options.fullPage ?? false,
      });
    },
    async close() {
      await browser.close();
      await fixture.close();
    },
  };
}
