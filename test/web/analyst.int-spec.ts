import { pseudonymize } from '@echoloop/datasets';
import { replyWith } from '@echoloop/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sendAndCollect } from '../chat/chat-fixture';
import { type BrowserFixture, startBrowserFixture } from './browser-fixture';

const KEY = 'web-analyst-pseudonym-key-0123456789abcdef';

/** A labelled turn to seed: the reward components the labeller would have stored, and the user's feedback. */
interface Seed {
  message: string;
  reply: string;
  rewards: { empathy: number; humanlike: number; live_emotion: number; implicit: number };
  delta: number;
  signals?: Record<string, unknown>;
}

describe('web app: labelled turns and exports for analysts', () => {
  let w: BrowserFixture;
  let fixture: BrowserFixture['fixture'];
  let page: BrowserFixture['page'];
  let exportDir: string;
  const saved = { dir: process.env['EXPORT_DIR'], key: process.env['EXPORT_PSEUDONYM_KEY'] };
  let sam: { userId: string; conversationId: string; turnIds: string[] };
  let alex: { userId: string; conversationId: string; turnIds: string[] };

  /** A consenting user's conversation, chatted through the gateway, each reply then labelled as the labeller would. */
  async function labelledConversation(name: string, seeds: Seed[]) {
    const { token, userId } = await fixture.register(name);
    expect((await fixture.http(token, 'PATCH', '/v1/me', { trainingConsent: true })).status).toBe(200);
    const { id: conversationId } = (
      await fixture.http(token, 'POST', '/v1/conversations', { characterId: fixture.characterId })
    ).body as { id: string };
    const socket = await fixture.connect(token);
    const turnIds: string[] = [];
    for (const [index, seed] of seeds.entries()) {
      fixture.vllm.setReply(replyWith(seed.reply));
      const turn = await sendAndCollect(socket, {
        conversationId,
        content: seed.message,
        clientMessageId: `${name}-${index}`,
      });
      expect(turn.error).toBeUndefined();
      const replyId = turn.done.replyId as string;
      turnIds.push(replyId);
      await fixture.db.query(
        `INSERT INTO reward_turns (turn_id, conversation_id, user_id, user_message_id, checkpoint_id, turn,
                                   replied_at, signals, labelled_versions)
         SELECT m.id, m.conversation_id, c.user_id, u.id, 'base',
                jsonb_build_object(
                  'characterId', c.character_id,
                  'history', COALESCE((SELECT jsonb_agg(jsonb_build_object('role', h.role, 'content', h.content)
                                                        ORDER BY h.created_at)
                                         FROM messages h
                                        WHERE h.conversation_id = m.conversation_id AND h.created_at < u.created_at),
                                      '[]'::jsonb),
                  'userMessage', jsonb_build_object('id', u.id, 'content', u.content),
                  'assistantMessage', jsonb_build_object('id', m.id, 'content', m.content),
                  'personaSnapshot', jsonb_build_object('schemaVersion', 1, 'fields', '{}'::jsonb)),
                m.created_at, $2::jsonb, '{labeller-v1}'
           FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN messages u ON u.id = m.parent_id
          WHERE m.id = $1`,
        [replyId, JSON.stringify(seed.signals ?? {})],
      );
      for (const [component, value] of Object.entries(seed.rewards)) {
        await fixture.db.query(
          `INSERT INTO reward_labels (turn_id, component, labeller_version, status, value, details)
           VALUES ($1, $2, 'labeller-v1', 'labelled', $3, $4)`,
          [replyId, component, value, component === 'live_emotion' ? { delta: seed.delta } : null],
        );
      }
    }
    socket.disconnect();
    return { userId, conversationId, turnIds };
  }

  beforeAll(async () => {
    // The gateway this fixture starts writes its exports here, with a known pseudonym key.
    exportDir = await mkdtemp(path.join(tmpdir(), 'echoloop-web-exports-'));
    process.env['EXPORT_DIR'] = exportDir;
    process.env['EXPORT_PSEUDONYM_KEY'] = KEY;
    w = await startBrowserFixture();
    ({ fixture, page } = w);
    sam = await labelledConversation('Sam', [
      {
        message: 'Long shift tonight, I am wiped out.',
        reply: 'That sounds exhausting. What happened on the ward?',
        rewards: { empathy: 0.8, humanlike: 0.7, live_emotion: -0.4, implicit: 0.2 },
        delta: -0.4,
      },
      {
        message: 'A patient I liked went home, which is good, but I will miss her.',
        reply: 'It is bittersweet when someone you cared for leaves, even for a good reason.',
        rewards: { empathy: 0.9, humanlike: 0.6, live_emotion: 0.1, implicit: 0.5 },
        delta: 0.5,
        signals: { thumbs: 1 },
      },
      {
        message: 'Yes, exactly. Thanks for listening.',
        reply: 'Any time. Get some rest tonight.',
        rewards: { empathy: 0.6, humanlike: 0.8, live_emotion: 0.6, implicit: 0.7 },
        delta: 0.5,
        signals: { stars: 5 },
      },
    ]);
    alex = await labelledConversation('Alex', [
      {
        message: 'Tell me a fact about owls.',
        reply: 'Owls cannot move their eyes, so they turn their heads instead.',
        rewards: { empathy: 0.1, humanlike: 0.5, live_emotion: 0, implicit: -0.2 },
        delta: 0,
        signals: { thumbs: -1 },
      },
    ]);
  }, 240_000);

  afterAll(async () => {
    await w?.close();
    if (saved.dir === undefined) delete process.env['EXPORT_DIR'];
    else process.env['EXPORT_DIR'] = saved.dir;
    if (saved.key === undefined) delete process.env['EXPORT_PSEUDONYM_KEY'];
    else process.env['EXPORT_PSEUDONYM_KEY'] = saved.key;
    if (exportDir) await rm(exportDir, { recursive: true, force: true });
  });

  const rows = () => page.getByRole('region', { name: 'Labelled turns' }).locator('tbody tr');

  it('filters labelled turns, keeps the filters in the address, and opens a conversation', async () => {
    const { email } = await w.account(['user', 'analyst']);
    await w.signIn(email);
    await page.getByRole('navigation', { name: 'Team' }).getByRole('link', { name: 'Turns' }).click();
    await page.waitForURL(/\/turns$/);
    await page.getByText('4 turns.').waitFor();
    expect(await rows().count()).toBe(4);
    // The character filter lists the characters by name.
    await page.getByLabel('Character').selectOption({ label: 'Mira' });
    await w.expectAccessible();

    // Empathy at least 0.5 keeps Sam's three turns and drops Alex's.
    await page.getByRole('group', { name: 'Empathy' }).getByLabel('At least').fill('0.5');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/empathyMin=0\.5/);
    await page.getByText(/^3 turns where character Mira, empathy ≥ 0\.5\.$/).waitFor();
    expect(await rows().count()).toBe(3);
    expect(await page.getByText('Owls cannot move their eyes', { exact: false }).count()).toBe(0);
    const first = rows().first();
    await first.getByRole('cell', { name: 'Long shift tonight, I am wiped out.' }).waitFor();
    await first.getByRole('cell', { name: '0.8', exact: true }).waitFor();

    // The address alone gives the same view: reload it.
    await page.reload();
    await page.getByText(/^3 turns where/).waitFor();
    expect(await page.getByRole('group', { name: 'Empathy' }).getByLabel('At least').inputValue()).toBe(
      '0.5',
    );

    // A thumb filter narrows it further.
    await page.getByLabel('Thumb').selectOption('up');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/thumb=up/);
    await page.getByText(/^1 turn where/).waitFor();
    expect(await rows().count()).toBe(1);
    await rows().first().getByRole('cell', { name: 'thumb up' }).waitFor();
    await page.goBack();
    await page.getByText(/^3 turns where/).waitFor();
    await w.screenshots('turns', { fullPage: true });

    // A row opens its whole conversation: every turn, in order, with its rewards and the emotion trajectory.
    await rows().first().getByRole('link').click();
    await page.waitForURL(new RegExp(`/turns/${sam.conversationId}$`));
    await page.getByRole('heading', { name: 'Conversation with Mira' }).waitFor();
    const turns = page.locator('ol.conversation-turns > li');
    await turns.first().waitFor();
    expect(await turns.count()).toBe(3);
    await turns
      .nth(0)
      .getByRole('heading', { name: /^Turn 1/ })
      .waitFor();
    await turns.nth(1).getByText('A patient I liked went home', { exact: false }).waitFor();
    const second = turns.nth(1);
    for (const [name, value] of [
      ['Empathy', '0.9'],
      ['Humanlike', '0.6'],
      ['Live emotion', '0.1'],
      ['Implicit', '0.5'],
      ['Emotion change', '+0.5'],
    ]) {
      const item = second.locator('.turn-rewards > div', {
        has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }),
      });
      expect(await item.locator('dd').textContent()).toBe(value);
    }
    const chart = page.getByRole('img', { name: /^Live emotion over 3 turns/ });
    await chart.waitFor();
    expect(await chart.getAttribute('aria-label')).toBe(
      'Live emotion over 3 turns, from -0.4 to 0.6 (lowest -0.4, highest 0.6): turn 1 -0.4, turn 2 0.1, turn 3 0.6',
    );
    expect(await chart.locator('polyline.trajectory').count()).toBe(1);
    expect(await chart.locator('circle.trajectory-point').count()).toBe(3);
    const data = page.getByRole('region', { name: 'Live emotion by turn' });
    expect(await data.locator('tbody tr').allInnerTexts()).toEqual([
      '1\t-0.4\t-0.4',
      '2\t0.1\t+0.5',
      '3\t0.6\t+0.5',
    ]);
    await w.expectAccessible();
    await w.screenshots('conversation', { fullPage: true });

    // Back to the list, filters kept.
    await page.getByRole('link', { name: '← All turns' }).click();
    await page.waitForURL(/\/turns\?.*empathyMin=0\.5/);
    await page.getByText(/^3 turns where/).waitFor();
    w.expectNoPageErrors();
  }, 120_000);

  it('pages through turns with Load more, and filters the API by conversation', async () => {
    // A page size in the address (the page's default is 50): two pages of two.
    await page.goto(`${fixture.gateway.url}/turns?limit=2`);
    await page.getByText('2+ turns.').waitFor();
    expect(await rows().count()).toBe(2);
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByText('4 turns.').waitFor();
    expect(await rows().count()).toBe(4);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    const shown = await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-turn')));
    expect(shown).toEqual([...sam.turnIds, ...alex.turnIds]);

    // A conversation, as the record identifies it, is a filter of the API (and so of exports).
    const { token } = await w.account(['analyst']);
    // Page by page, one at a time: every turn once, though their times have microseconds.
    const paged: string[] = [];
    for (let cursor: string | null = '', pages = 0; cursor !== null && pages < 10; pages++) {
      const res = await fixture.http(token, 'GET', `/v1/turns?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      paged.push(...res.body.items.map((t: { turnId: string }) => t.turnId));
      cursor = res.body.nextCursor;
    }
    expect(paged).toEqual([...sam.turnIds, ...alex.turnIds]);
    const one = await fixture.http(token, 'GET', `/v1/turns?conversationId=${alex.conversationId}`);
    expect(one.status).toBe(200);
    expect(one.body.items.map((t: { turnId: string }) => t.turnId)).toEqual(alex.turnIds);
    expect((await fixture.http(token, 'GET', '/v1/turns?conversationId=nope')).status).toBe(400);
    w.expectNoPageErrors();
  }, 60_000);

  it('starts an export of the filtered turns and downloads it', async () => {
    await page.goto(`${fixture.gateway.url}/turns?empathyMin=0.5`);
    await page.getByText(/^3 turns where/).waitFor();
    await page.getByRole('link', { name: 'Export these turns…' }).click();
    await page.waitForURL(/\/exports\?empathyMin=0\.5$/);
    await page.getByRole('heading', { name: 'New export' }).waitFor();
    const only = page.getByLabel(/Only the turns matching the current turn filters: empathy ≥ 0\.5/);
    expect(await only.isChecked()).toBe(true);
    await page.getByRole('radio', { name: 'Labelled turns' }).check();
    await page.getByRole('radio', { name: 'JSONL' }).check();
    await w.expectAccessible();
    const started = page.waitForResponse(
      (res) => res.url().endsWith('/v1/exports') && res.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Start export' }).click();
    const created = (await (await started).json()) as { id: string; filters: unknown };
    expect(created.filters).toEqual({ empathyMin: 0.5 });

    // The list polls until it is done.
    const row = page.locator(`tr[data-export="${created.id}"]`);
    await row.locator('.status', { hasText: 'succeeded' }).waitFor({ timeout: 30_000 });
    await page.getByText('The export finished with 3 rows.').waitFor();
    await row.getByRole('cell', { name: '3', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'empathy ≥ 0.5' }).waitFor();
    await w.expectAccessible();
    await w.screenshots('exports', { fullPage: true });

    const downloaded = page.waitForEvent('download');
    await row.getByRole('button', { name: /^Download/ }).click();
    const download = await downloaded;
    expect(download.suggestedFilename()).toBe(`turns-${created.id}.jsonl`);
    const file = await download.path();
    const records = (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, any>);
    expect(records.map((r) => r['turnId'])).toEqual(sam.turnIds);
    for (const record of records) {
      expect(record).toMatchObject({
        conversationId: sam.conversationId,
        user: pseudonymize(KEY, sam.userId),
      });
      expect(record['rewards']['empathy']).toBeGreaterThanOrEqual(0.5);
      expect(JSON.stringify(record)).not.toContain(sam.userId);
    }
    await page.getByText('Download started.').waitFor();

    // A CSV of every turn: no filters this time.
    await page.goto(`${fixture.gateway.url}/exports`);
    await page
      .getByText('Every labelled turn of users who agreed to training use.', { exact: false })
      .waitFor();
    await page.getByRole('radio', { name: 'CSV' }).check();
    const startedCsv = page.waitForResponse(
      (res) => res.url().endsWith('/v1/exports') && res.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Start export' }).click();
    const csv = (await (await startedCsv).json()) as { id: string };
    const csvRow = page.locator(`tr[data-export="${csv.id}"]`);
    await csvRow.locator('.status', { hasText: 'succeeded' }).waitFor({ timeout: 30_000 });
    const downloadedCsv = page.waitForEvent('download');
    await csvRow.getByRole('button', { name: /^Download/ }).click();
    const csvFile = await (await downloadedCsv).path();
    const lines = (await readFile(csvFile, 'utf8')).trim().split(/\r?\n/);
    expect(lines).toHaveLength(1 + 4);
    expect(lines[0]).toContain('turnId');
    w.expectNoPageErrors();
  }, 120_000);

  it('keeps turns and exports from a plain user', async () => {
    const { email, token } = await w.account(['user']);
    await w.signIn(email);
    for (const section of ['turns', 'exports']) {
      await page.goto(`${fixture.gateway.url}/${section}`);
      await page.getByText('You do not have access').waitFor();
      await w.expectAccessible();
    }
    expect(await page.getByRole('navigation', { name: 'Team' }).count()).toBe(0);
    expect((await fixture.http(token, 'GET', '/v1/turns')).status).toBe(403);
    expect((await fixture.http(token, 'GET', '/v1/exports')).status).toBe(403);
    expect((await fixture.http(token, 'POST', '/v1/exports', { kind: 'turns' })).status).toBe(403);
    w.expectNoPageErrors();
  }, 60_000);
});
