import { type BrowserFixture, startBrowserFixture } from './browser-fixture';

describe('web app: experiments in the browser', () => {
  let w: BrowserFixture;
  let fixture: BrowserFixture['fixture'];
  let page: BrowserFixture['page'];

  beforeAll(async () => {
    w = await startBrowserFixture();
    ({ fixture, page } = w);
  }, 180_000);

  afterAll(() => w?.close());

  const account = (roles: string[]) => w.account(roles);
  const signIn = (email: string) => w.signIn(email);

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
    await page.getByRole('navigation', { name: 'Team' }).getByRole('link', { name: 'Experiments' }).click();
    await page.waitForURL(/\/experiments$/);
    await page.getByText('No experiments yet.').waitFor();

    await page.getByLabel('Name').fill('Candidate vs base');
    const treatment = page.getByRole('group', { name: 'Treatment arm 1' });
    await treatment.getByLabel('Checkpoint').selectOption('candidate-web');
    await page.getByLabel('Traffic (% of users)').fill('40');
    await w.expectAccessible();
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
    await w.expectAccessible();
    await w.screenshots('experiments', { fullPage: true });

    // Stopping shows the reason, and the history who stopped it and why.
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.status', { hasText: 'stopped' }).waitFor();
    await page.locator('p.note', { hasText: 'Stop reason: stopped by an experimenter' }).waitFor();
    const stopped = page
      .getByRole('region', { name: 'History' })
      .getByRole('row', { name: /stopped.*a person.*stopped by an experimenter/ });
    await stopped.waitFor();
    await page.getByRole('button', { name: 'Promote treatment' }).waitFor();

    // The list shows it with its status.
    await page.getByRole('link', { name: '← All experiments' }).click();
    await page.getByRole('link', { name: 'Candidate vs base' }).waitFor();
    await page.locator('.status', { hasText: 'stopped' }).waitFor();
    await w.expectAccessible();
    await w.screenshots('experiments-list', { fullPage: true });
    w.expectNoPageErrors();
  }, 120_000);

  it('lets an experimenter register a checkpoint and retire it', async () => {
    const { email, token } = await account(['user', 'experimenter']);
    await signIn(email);
    await page.getByRole('navigation', { name: 'Team' }).getByRole('link', { name: 'Checkpoints' }).click();
    await page.waitForURL(/\/checkpoints$/);
    const rows = page.getByRole('region', { name: 'Checkpoints' });
    await rows.getByRole('rowheader', { name: 'base' }).waitFor();
    await page.getByLabel('Checkpoint id').fill('web-registered');
    await page.getByLabel('Served model name').fill('fake-base-model');
    await page.getByLabel('Endpoint base URL').fill(fixture.vllm.url);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByText('web-registered registered as a candidate.').waitFor();
    const row = rows.locator('tr[data-checkpoint="web-registered"]');
    await row.getByText('candidate').waitFor();
    // The default cannot be retired from here: it has no button.
    expect(await rows.locator('tr[data-checkpoint="base"]').getByRole('button').count()).toBe(0);
    await w.expectAccessible();
    await w.screenshots('checkpoints', { fullPage: true });

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Retire web-registered' }).click();
    await row.getByText('retired').waitFor();
    const listed = await fixture.http(token, 'GET', '/v1/checkpoints');
    expect(listed.body.items).toContainEqual(
      expect.objectContaining({ id: 'web-registered', status: 'retired' }),
    );
    w.expectNoPageErrors();
  }, 60_000);

  it('keeps experiments from a plain user', async () => {
    const { email, token } = await account(['user']);
    await signIn(email);
    await page.goto(`${fixture.gateway.url}/experiments`);
    // Shown once the roles are known, so the nav below is settled too.
    await page.getByText('You do not have access').waitFor();
    expect(await page.getByRole('navigation', { name: 'Team' }).count()).toBe(0);
    await w.expectAccessible();
    expect((await fixture.http(token, 'GET', '/v1/experiments')).status).toBe(403);
    expect((await fixture.http(token, 'GET', '/v1/checkpoints')).status).toBe(403);
    w.expectNoPageErrors();
  }, 60_000);
});
