import { BASE_MODEL, MODEL_URL } from '../rl/refresh-fixture';
import { type BrowserFixture, startBrowserFixture } from './browser-fixture';

/** The product as `./echoloop up` serves it: the web app, the gateway and the real vLLM engine of the stack. */
describe('web app: chat in the browser with replies from the real engine', () => {
  let w: BrowserFixture;

  beforeAll(async () => {
    w = await startBrowserFixture({
      LLM_BASE_URL: MODEL_URL,
      LLM_MODEL: BASE_MODEL,
      LLM_MAX_TOKENS: '32',
      LLM_FIRST_TOKEN_TIMEOUT_MS: '30000',
      LLM_IDLE_TIMEOUT_MS: '30000',
    });
  }, 180_000);

  afterAll(() => w?.close());

  it('signs up, picks the character and gets a streamed reply the engine wrote', async () => {
    const { page, fixture } = w;
    await page.goto(`${fixture.gateway.url}/sign-up`);
    await page.getByLabel('Display name').fill('Sam');
    await page.getByLabel('Email').fill(`web-engine-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('a good passphrase');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('button', { name: /Mira/ }).click();
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);

    await page.getByLabel('Message').fill('Hi Mira, I could use some cheering up today.');
    await page.keyboard.press('Enter');
    await page.locator('.message-assistant[data-state="complete"]').nth(1).waitFor({ timeout: 90_000 });
    const shown = (
      (await page.locator('.message-assistant .message-text').last().textContent()) ?? ''
    ).trim();
    expect(shown.length).toBeGreaterThan(0);

    // Stored as the page showed it, written by the engine's model under the default checkpoint, with its usage.
    const conversationId = /\/chat\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    const [reply] = (await fixture.db.query(
      `SELECT content, checkpoint_id, completion_tokens FROM messages
        WHERE conversation_id = $1 AND role = 'assistant' AND parent_id IS NOT NULL`,
      [conversationId],
    )) as { content: string; checkpoint_id: string; completion_tokens: number | null }[];
    expect(reply?.content.trim()).toBe(shown);
    expect(reply?.completion_tokens).toBeGreaterThan(0);
    const [checkpoint] = (await fixture.db.query(`SELECT model_name FROM checkpoints WHERE id = $1`, [
      reply?.checkpoint_id,
    ])) as { model_name: string }[];
    expect(checkpoint?.model_name).toBe(BASE_MODEL);
    w.expectNoPageErrors();
  }, 180_000);
});
