import { characterCardV2Schema, createSolidPng, writeCardToPng } from '@echoloop/character-cards';
import { type BrowserFixture, startBrowserFixture } from './browser-fixture';

/** A real Character Card V2 PNG: a small solid image with the card as base64 JSON in a `chara` tEXt chunk. */
function cardPng(name: string, rgb: [number, number, number]): Buffer {
  const card = characterCardV2Schema.parse({
    spec: 'chara_card_v2',
    spec_version: '2.0',
    data: {
      name,
      description: `{{char}} is ${name}, a lighthouse keeper.`,
      personality: 'calm',
      scenario: 'A stormy night.',
      first_mes: 'The lamp is lit. Come in, {{user}}.',
      mes_example: '',
      creator_notes: '',
      system_prompt: '',
      post_history_instructions: '',
      alternate_greetings: [],
      tags: ['test'],
      creator: 'web test',
      character_version: '1',
      extensions: {},
    },
  });
  return Buffer.from(writeCardToPng(card, createSolidPng({ width: 48, height: 64, rgb })));
}

const STAFF_PAGES = [
  'experiments',
  'checkpoints',
  'rl-jobs',
  'evaluations',
  'turns',
  'exports',
  'users',
  'api-keys',
];

describe('web app: admins (users, API keys, card import) and who may open the staff pages', () => {
  let w: BrowserFixture;
  let fixture: BrowserFixture['fixture'];
  let page: BrowserFixture['page'];

  beforeAll(async () => {
    w = await startBrowserFixture();
    ({ fixture, page } = w);
  }, 180_000);

  afterAll(() => w?.close());

  const url = (path: string) => `${fixture.gateway.url}${path}`;
  const userId = async (email: string): Promise<string> =>
    (await fixture.db.query('SELECT id FROM users WHERE email = $1', [email]))[0].id;
  /** The card button of a character, and once loaded, its picture's natural width. */
  const avatarWidth = async (name: string): Promise<number> => {
    const img = page.getByRole('button', { name: new RegExp(`^${name}`) }).locator('img.avatar');
    await img.waitFor();
    await page.waitForFunction((el: any) => el.complete && el.naturalWidth > 0, await img.elementHandle());
    return img.evaluate((el: any) => el.naturalWidth as number);
  };

  it('lets an admin import PNG cards by choosing a file and by dropping one; each shows with its picture', async () => {
    const { email, token } = await w.account(['user', 'admin']);
    await w.signIn(email);
    await page.getByRole('heading', { name: 'Import a card' }).waitFor();
    await page.getByRole('button', { name: /^Mira/ }).waitFor();
    await w.expectAccessible();

    // The keyboard path: the "Choose a file" input.
    const imported = page.waitForResponse((res) => res.url().endsWith('/v1/characters/import'));
    await page.getByLabel('Choose a file').setInputFiles({
      name: 'kaito.png',
      mimeType: 'image/png',
      buffer: cardPng('Kaito', [0x3b, 0x4f, 0xd8]),
    });
    expect((await imported).status()).toBe(201);
    await page.getByRole('status').filter({ hasText: 'Imported Kaito.' }).waitFor();
    expect(await avatarWidth('Kaito')).toBe(48);

    // A file dropped on the zone, as a browser delivers it.
    const png = cardPng('Rin', [0xd8, 0x6a, 0x3b]);
    const dataTransfer = await page.evaluateHandle(
      (bytes) => {
        // No DOM types here: the test's tsconfig is Node's.
        const { DataTransfer, File } = globalThis as any;
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(bytes)], 'rin.png', { type: 'image/png' }));
        return transfer;
      },
      [...png],
    );
    const zone = page.locator('.card-drop');
    await zone.dispatchEvent('dragenter', { dataTransfer });
    await zone.dispatchEvent('dragover', { dataTransfer });
    await page.locator('.card-drop-active').waitFor();
    await zone.dispatchEvent('drop', { dataTransfer });
    await page.getByRole('status').filter({ hasText: 'Imported Rin.' }).waitFor();
    expect(await avatarWidth('Rin')).toBe(48);
    expect(await zone.getAttribute('class')).not.toContain('card-drop-active');

    const listed = await fixture.http(token, 'GET', '/v1/characters');
    expect(listed.body.items.map((c: any) => c.name)).toEqual(['Mira', 'Kaito', 'Rin']);
    // Still there after a reload, pictures included.
    await page.reload();
    expect(await avatarWidth('Kaito')).toBe(48);
    await w.expectAccessible();
    await w.screenshots('card-import');
    w.expectNoPageErrors();
  }, 120_000);

  it("lets an admin change a user's roles (in effect on the user's next call), disable and enable them, and read the audit trail", async () => {
    const admin = await w.account(['user', 'admin']);
    const target = await w.account(['user']);
    const targetId = await userId(target.email);
    expect((await fixture.http(target.token, 'GET', '/v1/turns')).status).toBe(403);

    await w.signIn(admin.email);
    await page.getByRole('navigation', { name: 'Team' }).getByRole('link', { name: 'Users' }).click();
    await page.waitForURL(/\/users$/);
    await page.getByRole('link', { name: admin.email }).waitFor();
    await w.expectAccessible();
    await w.screenshots('users');
    await page.getByLabel('Email contains').fill(target.email);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1–1').waitFor();
    expect(await page.getByRole('link', { name: admin.email }).count()).toBe(0);

    await page.getByRole('link', { name: target.email }).click();
    await page.waitForURL(new RegExp(`/users/${targetId}$`));
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    await page.getByRole('checkbox', { name: /^analyst/ }).check();
    await page.getByRole('button', { name: 'Save roles' }).click();
    await page.getByRole('status').filter({ hasText: 'Roles saved: user, analyst.' }).waitFor();
    // The user's next call, with the token they already hold, has the new role.
    expect((await fixture.http(target.token, 'GET', '/v1/turns')).status).toBe(200);
    await page.getByRole('cell', { name: 'roles: user → user, analyst' }).waitFor();
    await page.getByRole('cell', { name: admin.email }).waitFor();

    // Disabling asks first; cancelling changes nothing.
    await page.getByRole('button', { name: 'Disable account…' }).click();
    const confirm = page.getByRole('group', { name: `Disable ${target.email}?` });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await fixture.http(target.token, 'GET', '/v1/me')).status).toBe(200);
    await page.getByRole('button', { name: 'Disable account…' }).click();
    await w.expectAccessible();
    await confirm.getByRole('button', { name: 'Yes, disable' }).click();
    await page.getByRole('status').filter({ hasText: 'Account disabled.' }).waitFor();
    expect((await fixture.http(target.token, 'GET', '/v1/me')).status).toBe(401);
    await page.getByRole('cell', { name: 'disabled: no → yes' }).waitFor();
    await w.expectAccessible();
    await w.screenshots('user-roles', { fullPage: true });
    await page.getByRole('button', { name: 'Enable account' }).click();
    await page.getByRole('status').filter({ hasText: 'Account enabled.' }).waitFor();
    expect((await fixture.http(admin.token, 'GET', `/v1/users/${targetId}`)).body).toMatchObject({
      roles: ['user', 'analyst'],
      disabled: false,
    });

    // Your own account: no disabling, and removing your own admin role asks first.
    await page.goto(url(`/users/${await userId(admin.email)}`));
    await page.getByText('You cannot disable your own account.').waitFor();
    await page.getByRole('checkbox', { name: /^admin/ }).uncheck();
    await page.getByRole('button', { name: 'Save roles' }).click();
    const demote = page.getByRole('group', { name: 'Remove your own admin role?' });
    await demote.getByRole('button', { name: 'Yes, remove my admin role' }).waitFor();
    await w.expectAccessible();
    await demote.getByRole('button', { name: 'Cancel' }).click();
    expect((await fixture.http(admin.token, 'GET', '/v1/users')).status).toBe(200);
    w.expectNoPageErrors();
  }, 120_000);

  it("marks the RL loop's simulated users as simulated in the user list and on their page, and nobody else", async () => {
    const admin = await w.account(['user', 'admin']);
    const person = await w.account(['user']);
    const simulated = await w.account(['user']);
    await fixture.db.query('UPDATE users SET simulated = true WHERE email = $1', [simulated.email]);

    await w.signIn(admin.email);
    await page.goto(url('/users'));
    const badgeIn = async (email: string) => {
      await page.getByLabel('Email contains').fill(email);
      await page.getByRole('button', { name: 'Search' }).click();
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: email }) });
      await row.waitFor();
      return row.getByText('simulated', { exact: true }).count();
    };
    expect(await badgeIn(simulated.email)).toBe(1);
    expect(await badgeIn(person.email)).toBe(0);
    await badgeIn(simulated.email);
    expect(
      (await fixture.http(admin.token, 'GET', `/v1/users/${await userId(simulated.email)}`)).body,
    ).toMatchObject({ simulated: true });
    await page.getByRole('link', { name: simulated.email }).click();
    await page.getByText('simulated', { exact: true }).waitFor();
    await w.expectAccessible();
    w.expectNoPageErrors();
  }, 120_000);

  it('lets an admin create an API key, shows its secret once, rotates it and revokes it', async () => {
    const admin = await w.account(['user', 'analyst', 'admin']);
    const withKey = (secret: string) =>
      fetch(url('/v1/turns'), { headers: { 'x-api-key': secret } }).then((res) => res.status);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url('') });

    await w.signIn(admin.email);
    await page.getByRole('navigation', { name: 'Team' }).getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(/\/api-keys$/);
    await page.getByText('No API keys yet.').waitFor();
    await page.getByLabel('Name').fill('nightly export');
    await page.getByRole('checkbox', { name: /^reward-labeller/ }).check();
    await page.getByRole('checkbox', { name: /^analyst/ }).check();
    expect(await page.getByRole('checkbox', { name: /^experimenter/ }).isDisabled()).toBe(true);
    await w.expectAccessible();
    await page.getByRole('button', { name: 'Create key' }).click();

    await page.getByRole('heading', { name: 'Secret for “nightly export”' }).waitFor();
    await page.getByText('you will not see it again').waitFor();
    const secretField = page.getByLabel('Secret of nightly export');
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^elk_/);
    expect(await withKey(secret)).toBe(200);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(secret);
    const row = page.getByRole('row', { name: /nightly export/ });
    await row.getByRole('cell', { name: 'chat-gateway, reward-labeller' }).waitFor();
    await row.getByRole('cell', { name: 'analyst', exact: true }).waitFor();
    await w.expectAccessible();
    await w.screenshots('api-keys', { fullPage: true });

    // Gone once dismissed, and never shown again.
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    await secretField.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);

    // Rotating shows the new secret once; the old one works for the grace period.
    await row.getByRole('button', { name: 'Rotate' }).click();
    await row.getByRole('button', { name: 'Yes, new secret' }).click();
    await page.getByRole('heading', { name: 'New secret for “nightly export”' }).waitFor();
    const rotated = await secretField.inputValue();
    expect(rotated).toMatch(/^elk_/);
    expect(rotated).not.toBe(secret);
    await page.getByText(/The old secret keeps working until/).waitFor();
    expect(await withKey(rotated)).toBe(200);

    // Revoking asks first, then stops the key at once.
    await row.getByRole('button', { name: 'Revoke' }).click();
    await w.expectAccessible();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByRole('status').filter({ hasText: 'Revoked nightly export.' }).waitFor();
    await row.locator('.status', { hasText: 'revoked' }).waitFor();
    expect(await row.getByRole('button', { name: 'Rotate' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: /secret for/i }).count()).toBe(0);
    expect(await withKey(rotated)).toBe(401);
    const keys = await fixture.http(admin.token, 'GET', '/v1/api-keys');
    expect(keys.body.items).toEqual([
      expect.objectContaining({ name: 'nightly export', status: 'revoked', roles: ['analyst'] }),
    ]);
    w.expectNoPageErrors();
  }, 120_000);

  it('refuses every staff page and its API to a plain user, and the admin pages to an analyst', async () => {
    const plain = await w.account(['user']);
    await w.signIn(plain.email);
    await page.getByRole('button', { name: /^Mira/ }).waitFor();
    expect(await page.getByRole('heading', { name: 'Import a card' }).count()).toBe(0);
    for (const section of STAFF_PAGES) {
      await page.goto(url(`/${section}`));
      // Shown once the roles are known, so the nav below is settled too.
      await page.getByText('You do not have access').waitFor();
      expect(await page.getByRole('navigation', { name: 'Team' }).count()).toBe(0);
      await w.expectAccessible();
    }
    for (const path of [
      '/v1/experiments',
      '/v1/checkpoints',
      '/v1/turns',
      '/v1/exports',
      '/v1/users',
      '/v1/api-keys',
    ]) {
      expect([path, (await fixture.http(plain.token, 'GET', path)).status]).toEqual([path, 403]);
    }
    const form = new FormData();
    form.append('file', new Blob([cardPng('Nope', [0, 0, 0])]), 'nope.png');
    const upload = await fetch(url('/v1/characters/import'), {
      method: 'POST',
      headers: { authorization: `Bearer ${plain.token}` },
      body: form,
    });
    expect(upload.status).toBe(403);

    const analyst = await w.account(['user', 'analyst']);
    await w.signIn(analyst.email);
    const team = page.getByRole('navigation', { name: 'Team' });
    await team.getByRole('link', { name: 'Turns' }).waitFor();
    expect(await team.getByRole('link', { name: 'Users' }).count()).toBe(0);
    expect(await team.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    for (const section of ['users', 'api-keys']) {
      await page.goto(url(`/${section}`));
      await page.getByText('You do not have access').waitFor();
      await w.expectAccessible();
    }
    expect((await fixture.http(analyst.token, 'GET', '/v1/users')).status).toBe(403);
    expect((await fixture.http(analyst.token, 'GET', '/v1/api-keys')).status).toBe(403);
    w.expectNoPageErrors();
  }, 120_000);

  // Last: the gateway's 4xx answer is expected here, so no check for failed requests follows it.
  it("shows the gateway's reason when a file is not a card", async () => {
    const admin = await w.account(['user', 'admin']);
    await w.signIn(admin.email);
    await page.getByRole('heading', { name: 'Import a card' }).waitFor();
    const answered = page.waitForResponse((res) => res.url().endsWith('/v1/characters/import'));
    await page.getByLabel('Choose a file').setInputFiles({
      name: 'notes.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"hello": "not a card"}'),
    });
    const res = await answered;
    expect(res.status()).toBeGreaterThanOrEqual(400);
    const reason = ((await res.json()) as { error: { message: string } }).error.message;
    await page
      .getByRole('alert')
      .filter({ hasText: `Could not import notes.json: ${reason}` })
      .waitFor();
    await w.expectAccessible();
    expect(
      (await fixture.http(admin.token, 'GET', '/v1/characters')).body.items.map((c: any) => c.name),
    ).not.toContain('hello');
  }, 60_000);
});
