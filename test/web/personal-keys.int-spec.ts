import { type BrowserFixture, startBrowserFixture } from './browser-fixture';

/** What page.evaluate reads in the browser (this file compiles without the DOM's types). */
interface BrowserGlobals {
  navigator: { clipboard: { readText(): Promise<string> } };
}

describe('web app: personal keys on the Me page', () => {
  let w: BrowserFixture;
  let fixture: BrowserFixture['fixture'];
  let page: BrowserFixture['page'];

  beforeAll(async () => {
    w = await startBrowserFixture();
    ({ fixture, page } = w);
  }, 180_000);

  afterAll(() => w?.close());

  it('creates a key for a chat app, shows its secret once, lists it and revokes it', async () => {
    const { email, token } = await w.account(['user']);
    await w.signIn(email);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: fixture.gateway.url,
    });
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Me', exact: true })
      .click();
    await page.waitForURL(/\/me$/);
    const keys = page.getByRole('region', { name: 'Keys for your own chat apps' });
    await keys.getByText('No keys yet.').waitFor();
    // How to set up a client: the gateway's /v1 as the base URL, a character's name or `default` as the model.
    await keys.locator('code', { hasText: `${fixture.gateway.url}/v1` }).waitFor();
    await keys.locator('code', { hasText: 'default' }).waitFor();

    await keys.getByLabel('Name', { exact: true }).fill('SillyTavern');
    await keys.getByRole('checkbox', { name: /Adapt replies to my personality/ }).check();
    const created = page.waitForResponse(
      (res) => /\/v1\/me\/api-keys$/.test(res.url()) && res.request().method() === 'POST',
    );
    await keys.getByRole('button', { name: 'Create key' }).click();
    expect((await created).status()).toBe(201);

    // The secret, once, with its warning; it is a working key for an OpenAI-compatible client.
    const reveal = keys.getByRole('region', { name: 'Your key for “SillyTavern”' });
    await reveal.getByText('Copy it now: it will not be shown again.').waitFor();
    const secret = await reveal.getByLabel('Key for SillyTavern').inputValue();
    expect(secret.length).toBeGreaterThan(20);
    const models = await fixture.http(secret, 'GET', '/v1/models');
    expect(models.status).toBe(200);
    expect(models.body.data.map((m: { id: string }) => m.id)).toContain('default');
    await reveal.getByRole('button', { name: 'Copy' }).click();
    await reveal.getByText('Copied to the clipboard.').waitFor();
    expect(
      await page.evaluate(() => (globalThis as unknown as BrowserGlobals).navigator.clipboard.readText()),
    ).toBe(secret);

    // Listed with its prefix, active, adapting to the user's personality, never used so far.
    const [listed] = (await fixture.http(token, 'GET', '/v1/me/api-keys')).body.items;
    expect(listed).toMatchObject({ name: 'SillyTavern', status: 'active', personaGuidance: true });
    expect(secret.startsWith(listed.prefix)).toBe(true);
    const row = keys.getByRole('region', { name: 'Your keys' }).locator(`tr[data-key-id="${listed.id}"]`);
    await row.getByRole('rowheader', { name: 'SillyTavern' }).waitFor();
    await row.getByText(`${listed.prefix}…`).waitFor();
    await row.getByText('active').waitFor();
    expect(await row.locator('td').nth(4).innerText()).toBe('yes');
    await w.expectAccessible();

    // Done: the secret is gone, and a reload never shows it again; it shows when the key was last used.
    await reveal.getByRole('button', { name: 'Done, I have stored it' }).click();
    await reveal.waitFor({ state: 'detached' });
    const lastUsed = async () =>
      (await fixture.http(token, 'GET', '/v1/me/api-keys')).body.items[0].lastUsedAt;
    for (let i = 0; i < 50 && !(await lastUsed()); i++) await new Promise((r) => setTimeout(r, 100));
    await page.reload();
    await row.getByText('active').waitFor();
    expect(await row.locator('td').nth(3).innerText()).not.toBe('never');
    expect(await page.content()).not.toContain(secret);

    // Revoking asks first, then the key is revoked and stops working.
    await row.getByRole('button', { name: 'Revoke' }).click();
    const revoked = page.waitForResponse(
      (res) => /\/v1\/me\/api-keys\/[0-9a-f-]{36}$/.test(res.url()) && res.request().method() === 'DELETE',
    );
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    expect((await revoked).status()).toBe(204);
    await row.getByText('revoked').waitFor();
    expect(await row.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    await keys.getByText('Revoked SillyTavern: it no longer works.').waitFor();
    expect((await fixture.http(token, 'GET', '/v1/me/api-keys')).body.items).toEqual([
      expect.objectContaining({ id: listed.id, status: 'revoked', revokedAt: expect.any(String) }),
    ]);
    expect((await fixture.http(secret, 'GET', '/v1/models')).status).toBe(401);

    await w.expectAccessible();
    w.expectNoPageErrors();
  }, 120_000);
});
