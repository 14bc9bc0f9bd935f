import AxeBuilder from '@axe-core/playwright';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startChatFixture, type ChatFixture } from '../chat/chat-fixture';

const ROOT = path.resolve(__dirname, '../..');
const WEB_SRC = path.join(ROOT, 'apps/web');
const WEB_DIST = path.join(ROOT, 'dist/apps/web');

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

describe('web app: chat in the browser', () => {
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
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it('serves the page at / and leaves the API its JSON 404', async () => {
    const home = await fetch(`${fixture.gateway.url}/chat`, { headers: { accept: 'text/html' } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<div id="root">');
    const api = await fetch(`${fixture.gateway.url}/v1/no-such-route`, { headers: { accept: 'text/html' } });
    expect(api.status).toBe(404);
    expect(((await api.json()) as any).error.code).toBeDefined();
  });

  it('signs up, chats with a streamed reply and rates it', async () => {
    const email = `web-${Date.now()}@example.com`;
    await page.goto(`${fixture.gateway.url}/sign-up`);
    await page.getByLabel('Display name').fill('Sam');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a good passphrase');
    await page.getByRole('button', { name: 'Sign up' }).click();

    await page.getByRole('button', { name: /Mira/ }).click();
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
    await page.getByText(/long day\?/).waitFor();

    await page.getByLabel('Message').fill('Hello Mira, it was a long shift.');
    await page.keyboard.press('Enter');
    const reply = page.locator('.message-assistant').last();
    // The greeting is the first assistant message; the streamed reply is the second, complete once done.
    await page.locator('.message-assistant[data-state="complete"]').nth(1).waitFor();
    const replyText = (await reply.locator('.message-text').textContent()) ?? '';
    expect(replyText.trim().length).toBeGreaterThan(0);
    expect(await page.locator('.message-user').last().textContent()).toContain('long shift');

    // The conversation list names it.
    expect(await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link').count()).toBe(1);

    const rated = page.waitForResponse(
      (res) =>
        /\/v1\/messages\/[0-9a-f-]{36}\/feedback$/.test(res.url()) && res.request().method() === 'POST',
    );
    await reply.getByRole('button', { name: 'Good reply' }).click();
    expect((await rated).status()).toBe(200);
    await page.waitForSelector(
      '.message-assistant:last-child [aria-label="Good reply"][aria-pressed="true"]',
    );

    const conversationId = /\/chat\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    const feedback = await fixture.db.query(
      `SELECT f.thumb FROM feedback f JOIN messages m ON m.id = f.message_id
        WHERE m.conversation_id = $1`,
      [conversationId],
    );
    expect(feedback).toEqual([{ thumb: 1 }]);

    if (process.env['WEB_SCREENSHOTS'] === '1') {
      await page.screenshot({ path: path.join(ROOT, 'docs/images/web-chat.png') });
    }

    const axe = await new AxeBuilder({ page }).analyze();
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(failedResponses).toEqual([]);
  }, 120_000);
});
