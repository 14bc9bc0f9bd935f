import { type BrowserFixture, startBrowserFixture } from './browser-fixture';

/** What page.evaluate reads in the browser (this file compiles without the DOM's types). */
interface BrowserGlobals {
  localStorage: { getItem(key: string): string | null };
}

describe('web app: chat in the browser', () => {
  let w: BrowserFixture;
  let fixture: BrowserFixture['fixture'];
  let page: BrowserFixture['page'];

  beforeAll(async () => {
    w = await startBrowserFixture();
    ({ fixture, page } = w);
  }, 180_000);

  const isFeedback = (res: { url(): string; request(): { method(): string } }) =>
    /\/v1\/messages\/[0-9a-f-]{36}\/feedback$/.test(res.url()) && res.request().method() === 'POST';

  afterAll(() => w?.close());

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
    await w.expectAccessible();
    await w.screenshots('sign-up');
    await page.getByRole('button', { name: 'Sign up' }).click();

    await page.getByRole('button', { name: /Mira/ }).waitFor();
    await w.expectAccessible();
    await w.screenshots('characters');
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

    const rated = page.waitForResponse(isFeedback);
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

    await w.expectAccessible();
    w.expectNoPageErrors();
  }, 120_000);

  it('regenerates, browses back to the first reply, keeps it and gives it stars', async () => {
    const conversationId = /\/chat\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    const replies = async () =>
      (await fixture.db.query(
        `SELECT id, selected FROM messages
          WHERE conversation_id = $1 AND role = 'assistant' AND parent_id IS NOT NULL ORDER BY created_at`,
        [conversationId],
      )) as { id: string; selected: boolean }[];
    const [first] = await replies();

    const reply = page.locator('.message-assistant').last();
    await reply.getByRole('button', { name: 'Regenerate' }).click();
    await page
      .locator('.message-assistant[data-state="complete"] .swipe-position', { hasText: '2/2' })
      .waitFor();
    await reply.getByText('Kept').waitFor();
    // The newest alternative is kept until the user picks another.
    for (let i = 0; i < 50 && (await replies()).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await replies()).map((r) => r.selected)).toEqual([false, true]);

    await reply.getByRole('button', { name: 'Previous alternative' }).click();
    await reply.locator('.swipe-position', { hasText: '1/2' }).waitFor();
    expect(await reply.getByRole('button', { name: 'Next alternative' }).isEnabled()).toBe(true);
    const kept = page.waitForResponse((res) => /\/select$/.test(res.url()));
    await reply.getByRole('button', { name: 'Keep this reply' }).click();
    expect((await kept).status()).toBe(204);
    await reply.getByText('Kept').waitFor();
    expect(await replies()).toEqual([
      { id: first?.id, selected: true },
      { id: expect.any(String), selected: false },
    ]);

    // Stars: a radio group, reachable and changeable from the keyboard.
    const threeStars = page.waitForResponse(isFeedback);
    await reply.getByRole('radio', { name: '3 stars' }).click();
    expect((await threeStars).status()).toBe(200);
    await page.waitForSelector('.message-assistant:last-child [aria-label="3 stars"]:checked');
    const fourStars = page.waitForResponse(isFeedback);
    await page.keyboard.press('ArrowRight');
    expect((await fourStars).status()).toBe(200);
    await page.waitForSelector('.message-assistant:last-child [aria-label="4 stars"]:checked');
    const feedback = await fixture.db.query(
      `SELECT message_id, thumb, stars FROM feedback WHERE message_id = $1`,
      [first?.id],
    );
    expect(feedback).toEqual([{ message_id: first?.id, thumb: 1, stars: 4 }]);

    await w.expectAccessible();
    await w.screenshots('chat');

    // A reload shows the kept alternative, first of two.
    await page.reload();
    await page.locator('.message-assistant:last-child .swipe-position', { hasText: '1/2' }).waitFor();
    await page.locator('.message-assistant:last-child').getByText('Kept').waitFor();
    w.expectNoPageErrors();
  }, 120_000);

  it('edits a reply in place: the edit is saved, marked, shown after a reload, and Cancel leaves it', async () => {
    const reply = page.locator('.message-assistant').last();
    const shown = (await reply.locator('.message-text').innerText()).trim();
    await reply.getByRole('button', { name: 'Edit' }).click();
    await reply.getByRole('textbox', { name: 'Edit the reply' }).fill('Something else entirely');
    await reply.getByRole('button', { name: 'Cancel' }).click();
    expect((await reply.locator('.message-text').innerText()).trim()).toBe(shown);

    await reply.getByRole('button', { name: 'Edit' }).click();
    const box = reply.getByRole('textbox', { name: 'Edit the reply' });
    expect(await box.inputValue()).toBe(shown);
    await box.fill('That sounds hard. I am listening.');
    const saved = page.waitForResponse(
      (res) => /\/v1\/messages\/[0-9a-f-]{36}$/.test(res.url()) && res.request().method() === 'PATCH',
    );
    await reply.getByRole('button', { name: 'Save' }).click();
    expect((await saved).status()).toBe(200);
    await reply.getByText('(edited)').waitFor();
    const [row] = (await fixture.db.query(
      `SELECT content, original_content FROM messages WHERE original_content IS NOT NULL`,
    )) as { content: string; original_content: string }[];
    expect(row).toEqual({ content: 'That sounds hard. I am listening.', original_content: shown });

    await page.reload();
    await page.locator('.message-assistant').last().getByText('That sounds hard. I am listening.').waitFor();
    await page.locator('.message-assistant').last().getByText('(edited)').waitFor();
    await w.expectAccessible();
    w.expectNoPageErrors();
  }, 60_000);

  it('stops a streaming reply, and after a reload mid-reply picks the reply up where it is', async () => {
    // The fake model echoes the user's message; these are streamed slowly enough to act on mid-reply.
    fixture.vllm.setFaults((request) =>
      request.messages.findLast((m) => m.role === 'user')?.content.includes('slowly')
        ? { tokensPerSecond: 25 }
        : undefined,
    );
    const streamingText = page.locator('.message-assistant[data-state="streaming"] .message-text');
    const say = async (text: string) => {
      await page.getByLabel('Message').fill(text);
      await page.keyboard.press('Enter');
      await streamingText.filter({ hasText: 'and then' }).waitFor();
    };

    await say(`Tell it slowly: ${'and then '.repeat(60)}the end`);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.message-assistant[data-state="cancelled"]').getByText('(stopped)').waitFor();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    const conversationId = /\/chat\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    const newest = async () =>
      (
        (await fixture.db.query(
          `SELECT status, content FROM messages WHERE conversation_id = $1 AND role = 'assistant'
            ORDER BY created_at DESC LIMIT 1`,
          [conversationId],
        )) as { status: string; content: string }[]
      )[0];
    expect((await newest())?.status).toBe('cancelled');

    const story = `Again slowly: ${'and then '.repeat(60)}the end`;
    await say(story);
    await page.reload();
    // After the reload the reply is still streaming, every view of it a prefix of the whole (nothing doubled).
    await streamingText.waitFor();
    for (let i = 0; i < 5 && (await streamingText.count()) > 0; i++) {
      const text = ((await streamingText.textContent().catch(() => '')) ?? '').replace(/…$/, '');
      expect(story.startsWith(text)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const finished = page.locator('.message-assistant[data-state="complete"]').last();
    await finished.getByText('the end', { exact: false }).waitFor();
    expect((await finished.locator('.message-text').textContent())?.trim()).toBe(story);
    expect(await newest()).toEqual({ status: 'complete', content: story });
    fixture.vllm.setFaults(undefined);
    w.expectNoPageErrors();
  }, 120_000);

  it('shows the Me page: consent, the inferred profile, and deleting the account', async () => {
    const token = await page.evaluate(
      () =>
        (
          JSON.parse(
            (globalThis as unknown as BrowserGlobals).localStorage.getItem('echoloop.session') ?? '{}',
          ) as { accessToken?: string }
        ).accessToken,
    );
    const before = await fixture.http(token, 'GET', '/v1/me');
    expect(before.body.trainingConsent).toBe(false);
    const userId: string = before.body.id;

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Me' }).click();
    await page.waitForURL(/\/me$/);
    await page.getByRole('heading', { name: 'What the companion thinks of me' }).waitFor();
    await page.locator('.me').getByText(before.body.email).waitFor();

    // What was inferred from the chat, with the user's own message as evidence.
    await page.locator('.evidence').getByText('Hello Mira, it was a long shift.').first().waitFor();

    const consent = page.getByRole('checkbox', { name: /help train/ });
    const patched = page.waitForResponse(
      (res) => /\/v1\/me$/.test(res.url()) && res.request().method() === 'PATCH',
    );
    await consent.click();
    expect((await patched).status()).toBe(200);
    await page.getByRole('checkbox', { name: /help train/, checked: true }).waitFor();
    expect((await fixture.http(token, 'GET', '/v1/me')).body.trainingConsent).toBe(true);

    await w.expectAccessible();
    await w.screenshots('me');

    // Resetting the profile asks first.
    page.once('dialog', (dialog) => void dialog.accept());
    const reset = page.waitForResponse(
      (res) => /\/v1\/me\/profile$/.test(res.url()) && res.request().method() === 'DELETE',
    );
    await page.getByRole('button', { name: 'Reset what it thinks of me' }).click();
    expect((await reset).status()).toBe(204);
    await page.getByText(/forgotten what it inferred/).waitFor();
    await page.getByText(/^Nothing yet/).waitFor();
    expect(await page.locator('.evidence').count()).toBe(0);

    // Inference can be turned off, and on again.
    const inference = page.getByRole('checkbox', { name: /learn how I talk/ });
    const settings = () =>
      page.waitForResponse(
        (res) => /\/v1\/me\/profile$/.test(res.url()) && res.request().method() === 'PATCH',
      );
    let saved = settings();
    await inference.click();
    expect((await saved).status()).toBe(200);
    await page.getByText('You turned inference off: nothing is inferred about you.').waitFor();
    expect((await fixture.http(token, 'GET', '/v1/me/profile')).body.inferenceEnabled).toBe(false);
    saved = settings();
    await inference.click();
    expect((await saved).status()).toBe(200);
    await page.getByRole('checkbox', { name: /learn how I talk/, checked: true }).waitFor();
    expect((await fixture.http(token, 'GET', '/v1/me/profile')).body.inferenceEnabled).toBe(true);

    // Deleting the account asks first, then signs out.
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    await page.getByRole('button', { name: 'Yes, delete my account forever' }).click();
    await page.waitForURL(/\/sign-in$/);
    await page.getByRole('heading', { name: 'Sign in to Echoloop' }).waitFor();
    expect(await fixture.db.query('SELECT id FROM users WHERE id = $1', [userId])).toEqual([]);
    expect(
      await page.evaluate(() =>
        (globalThis as unknown as BrowserGlobals).localStorage.getItem('echoloop.session'),
      ),
    ).toBeNull();

    await w.expectAccessible();
    await w.screenshots('sign-in');
    w.expectNoPageErrors();
  }, 120_000);
});
