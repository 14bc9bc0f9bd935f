import { type StaffServices, startStaffServices } from '../staff-services/staff-services-fixture';
import { type BrowserFixture, startBrowserFixture } from './browser-fixture';

const LOGS = Array.from(
  { length: 30 },
  (_, i) => `step ${i + 1}/30 loss=${(0.7 - i * 0.01).toFixed(3)}`,
).join('\n');

/** A line of the gate's report as the orchestrator stores it. */
const gateCheck = (
  name: string,
  role: 'metric' | 'guard',
  items: number,
  [candidate, base, delta]: (number | null)[],
  interval: [number, number] | null,
  significance: string | null,
) => ({
  name,
  role,
  status: 'passed',
  items,
  candidate,
  default: base,
  delta,
  interval,
  significance,
  detail: null,
});

describe('web app: RL jobs and evaluations in the browser', () => {
  let services: StaffServices;
  let w: BrowserFixture;
  let page: BrowserFixture['page'];
  let finishedJob: string;
  let runningJob: string;
  let evaluations: { base: string; candidate: string };

  beforeAll(async () => {
    services = await startStaffServices('webstaff');
    // Jobs as the orchestrator leaves them (it drives none here): one that went all the way, one training now.
    const db = services.evals.db;
    const [done] = (await db.query(
      `INSERT INTO rl_jobs (status, trigger, template, runner, dataset, metrics, output, checkpoint_id, gate, logs_tail,
         reason, created_at, finished_at)
       VALUES ('succeeded', 'threshold', 'trl-dpo', 'ray', $1, $2, '{}', 'rl-candidate-1', $3, $4, NULL,
         now() - interval '2 hours', now() - interval '1 hour') RETURNING id`,
      [
        JSON.stringify({
          id: 'ds-1',
          kind: 'preferences',
          train: { rows: 48 },
          validation: { rows: 16 },
          heldout: { rows: 12 },
          cutoff: '2026-11-28T10:00:00.000Z',
          parent: {
            checkpointId: 'rl-parent-0',
            jobId: null,
            adapterPath: '/rl/jobs/p/adapter',
            cutoff: '2026-11-27T10:00:00.000Z',
          },
          replay: { fraction: 0.25, read: 40, kept: 9 },
          base: {
            ggufSha256: 'ab'.repeat(32),
            served: [{ baseUrl: 'http://m/v1', root: '/c/hf-base/abababababababab' }],
          },
        }),
        JSON.stringify({
          curve: Array.from({ length: 8 }, (_, i) => ({
            stage: 'train',
            step: i + 1,
            loss: 0.69 - i * 0.04,
          })),
          validation: [4, 8].map((step) => ({
            stage: 'validate',
            step,
            valLoss: 0.6 - step * 0.01,
            valAccuracy: step === 4 ? 0.8125 : 0.75,
            valMargin: step / 10,
            klToParent: step / 20,
          })),
          selection: {
            generalised: true,
            reason: 'validation accuracy 0.812, margin 0.400 at step 4',
            step: 4,
            maxKl: 1,
            stoppedBy: 'patience',
          },
          last: { stage: 'train', step: 8, loss: 0.41 },
          train_runtime: 42.5,
        }),
        JSON.stringify({
          passed: true,
          better: true,
          level: 0.95,
          reasons: [],
          notes: ['length_ratio off: GATE_CHECKS_OFF'],
          checks: [
            gateCheck('sentient', 'metric', 24, [61.5, 55, 6.5], [2.1, 10.9], 'higher'),
            gateCheck('heldout_reward', 'metric', 48, [0.31, 0.27, 0.04], [-0.01, 0.09], 'none'),
            gateCheck('repeated_sentences', 'guard', 48, [0.02, 0.01, 0.01], [-0.01, 0.03], 'none'),
            { ...gateCheck('length_ratio', 'guard', 0, [null, null, null], null, null), status: 'off' },
            gateCheck('kl_to_parent', 'guard', 0, [0.2, 0, 0.2], null, 'none'),
          ],
          evaluations: { candidate: crypto.randomUUID(), default: crypto.randomUUID() },
        }),
        LOGS,
      ],
    )) as { id: string }[];
    const [running] = (await db.query(
      `INSERT INTO rl_jobs (status, trigger, template, runner, dataset, logs_tail)
       VALUES ('training', 'manual', 'trl-dpo', 'local', $1, 'epoch 1: loading the base model') RETURNING id`,
      [JSON.stringify({ id: 'ds-2', kind: 'preferences', train: { rows: 52 }, heldout: { rows: 13 } })],
    )) as { id: string }[];
    finishedJob = done!.id;
    runningJob = running!.id;
    evaluations = {
      base: await services.evaluate('base-1', -4),
      candidate: await services.evaluate('candidate-1', 8),
    };
    w = await startBrowserFixture(services.gatewayEnv);
    ({ page } = w);
  }, 240_000);

  afterAll(async () => {
    await w?.close();
    await services?.stop();
  });

  it('shows an experimenter the RL jobs, a job with its stages and logs, and two evaluations side by side', async () => {
    const { email } = await w.account(['user', 'experimenter']);
    await w.signIn(email);
    await page.getByRole('navigation', { name: 'Team' }).getByRole('link', { name: 'RL jobs' }).click();
    await page.waitForURL(/\/rl-jobs$/);
    const jobs = page.getByRole('region', { name: 'RL jobs' });
    await jobs.getByRole('link', { name: `Job ${finishedJob.slice(0, 8)}` }).waitFor();
    expect(await jobs.getByRole('row').count()).toBe(3);
    await jobs.locator('.status', { hasText: 'succeeded' }).waitFor();
    await jobs.locator('.status', { hasText: 'training' }).waitFor();
    await jobs.getByRole('cell', { name: 'rl-candidate-1' }).waitFor();
    await w.expectAccessible();
    await w.screenshots('rl-jobs');

    await jobs.getByRole('link', { name: `Job ${finishedJob.slice(0, 8)}` }).click();
    await page.waitForURL(new RegExp(`/rl-jobs/${finishedJob}$`));
    await page.getByRole('heading', { name: `RL job ${finishedJob.slice(0, 8)}` }).waitFor();
    await page.getByRole('region', { name: 'Dataset' }).getByRole('cell', { name: '48' }).waitFor();
    await page
      .getByRole('region', { name: 'Dataset' })
      .getByRole('row', { name: /validation\s*16/ })
      .waitFor();
    // Where it came from: the parent it trained further, the data window and replay, the base weights checked.
    const lineage = page.getByRole('region', { name: 'Lineage' });
    expect(
      await lineage
        .getByRole('row', { name: /^Parent/ })
        .first()
        .textContent(),
    ).toContain('rl-parent-0 (its adapter, trained further)');
    expect(await lineage.getByRole('row', { name: /^Replayed/ }).textContent()).toContain('9 of 40');
    await lineage.getByRole('cell', { name: 'ab'.repeat(32) }).waitFor();
    // Training validated on other users: the kept step is marked, and why training stopped is said.
    const validation = page.getByRole('region', { name: 'Validation' });
    expect(await validation.getByRole('row', { name: /\(kept\)/ }).textContent()).toMatch(
      /^4 \(kept\)0\.560\.813/,
    );
    await page
      .getByText(/Kept step 4: validation accuracy 0\.812.*no better validation step for a while/)
      .waitFor();
    const gate = page.getByRole('region', { name: 'Gate checks' });
    await gate.getByRole('cell', { name: '[2.1, 10.9]' }).waitFor();
    expect(await gate.getByRole('row', { name: /Sentient benchmark/ }).textContent()).toMatch(
      /24.*61\.5.*55.*6\.5.*passed/,
    );
    expect(await gate.getByRole('row', { name: /Length/ }).textContent()).toContain('off');
    expect(await gate.getByRole('row', { name: /Drift from the parent/ }).textContent()).toContain('passed');
    expect(await page.locator('svg.rl-loss-chart').getAttribute('aria-label')).toMatch(/over 8 steps/);
    const logs = page.locator('pre.rl-logs');
    expect(await logs.textContent()).toContain('step 30/30 loss=0.410');
    expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
    await w.expectAccessible();
    await w.screenshots('rl-job', { fullPage: true });

    // The running job refreshes itself: a new log line shows without a reload.
    await page.goto(`${w.fixture.gateway.url}/rl-jobs/${runningJob}`);
    await page.locator('pre.rl-logs', { hasText: 'epoch 1' }).waitFor();
    await page.locator('.rl-stage-current', { hasText: 'training' }).waitFor();
    await services.evals.db.query(
      `UPDATE rl_jobs SET logs_tail = logs_tail || E'\\nepoch 2: loss 0.52' WHERE id = $1`,
      [runningJob],
    );
    await page.locator('pre.rl-logs', { hasText: 'epoch 2: loss 0.52' }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.getByText('Cancellation requested').waitFor();
    await page.getByText('(cancelling)').waitFor();

    await page.getByRole('navigation', { name: 'Team' }).getByRole('link', { name: 'Evaluations' }).click();
    await page.waitForURL(/\/evaluations$/);
    const list = page.getByRole('region', { name: 'Evaluations' });
    await list.getByRole('cell', { name: 'candidate-1' }).waitFor();
    await list.getByRole('cell', { name: 'base-1' }).waitFor();
    await page.getByLabel('Evaluation A').selectOption(evaluations.base);
    await page.getByLabel('Evaluation B').selectOption(evaluations.candidate);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(new RegExp(`/evaluations\\?a=${evaluations.base}&b=${evaluations.candidate}$`));
    const table = page.getByRole('region', { name: 'Metrics side by side' });
    const mean = table.getByRole('row', { name: /^Mean final score/ });
    await mean.waitFor();
    const cells = await mean.getByRole('cell').allTextContents();
    expect(cells).toHaveLength(3);
    expect(Number(cells[1]) - Number(cells[0])).toBeCloseTo(Number(cells[2]), 1);
    expect(Number(cells[2])).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Open report A' }).click();
    const frame = page.frameLocator('iframe[title^="Report A"]');
    await frame.locator('h1').first().waitFor();
    await page.getByRole('link', { name: 'Download report A' }).waitFor();
    await w.expectAccessible();
    await w.screenshots('evaluations', { fullPage: true });
    w.expectNoPageErrors();
  }, 120_000);

  it("shows an online GRPO job's validation by its own measure, the reward, against the parent's at step 0", async () => {
    const [grpo] = (await services.evals.db.query(
      `INSERT INTO rl_jobs (status, trigger, template, runner, dataset, metrics, created_at, finished_at)
       VALUES ('cancelled', 'manual', 'trl-grpo', 'ray', $1, $2, now() - interval '3 hours', now() - interval '3 hours')
       RETURNING id`,
      [
        JSON.stringify({ id: 'ds-3', kind: 'verl', train: { rows: 30 }, validation: { rows: 8 } }),
        JSON.stringify({
          curve: [1, 2, 3, 4].map((step) => ({ stage: 'train', step, loss: -0.01 * step, reward: 0.5 })),
          validation: [0, 4].map((step) => ({
            stage: 'validate',
            step,
            valReward: step === 0 ? 0.55 : 0.625,
            valRewardStd: 0.2,
            klToParent: step / 100,
          })),
          selection: {
            generalised: true,
            reason: "validation reward 0.6250 at step 4, the parent's 0.5500",
            step: 4,
            maxKl: 1,
            stoppedBy: null,
          },
        }),
      ],
    )) as { id: string }[];
    const { email } = await w.account(['user', 'experimenter']);
    await w.signIn(email);
    await page.goto(`${w.fixture.gateway.url}/rl-jobs/${grpo!.id}`);
    const validation = page.getByRole('region', { name: 'Validation' });
    await validation.getByRole('columnheader', { name: 'Reward', exact: true }).waitFor();
    expect(await validation.getByRole('columnheader').allTextContents()).toEqual([
      'Step',
      'Reward',
      'Reward spread',
      'KL to parent',
    ]);
    expect(await validation.getByRole('row', { name: /\(kept\)/ }).textContent()).toMatch(
      /^4 \(kept\)0\.625/,
    );
    await page.getByText(/Kept step 4: validation reward 0\.6250 at step 4, the parent's 0\.5500/).waitFor();
    await w.expectAccessible();
    w.expectNoPageErrors();
  }, 60_000);

  it('keeps RL jobs and evaluations from a plain user', async () => {
    const { email, token } = await w.account(['user']);
    await w.signIn(email);
    for (const section of ['rl-jobs', 'evaluations']) {
      await page.goto(`${w.fixture.gateway.url}/${section}`);
      await page.getByText('You do not have access').waitFor();
    }
    await w.expectAccessible();
    for (const path of ['/v1/rl/jobs', `/v1/rl/jobs/${finishedJob}`, '/v1/evaluations', '/v1/rl/triggers']) {
      expect([path, (await w.fixture.http(token, 'GET', path)).status]).toEqual([path, 403]);
    }
    expect((await w.fixture.http(token, 'POST', '/v1/rl/jobs', {})).status).toBe(403);
    w.expectNoPageErrors();
  }, 60_000);

  // Last: the 409 it shows is a failed request, which the page-error check above would count.
  it('says plainly that a refresh is already running', async () => {
    const { email } = await w.account(['user', 'experimenter']);
    // The cancelled job above still counts as running until the orchestrator stops it (it drives none here).
    await w.signIn(email);
    await page.goto(`${w.fixture.gateway.url}/rl-jobs`);
    await page.getByLabel('Note (optional)').fill('after the new data');
    await page.getByRole('button', { name: 'Start a refresh' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('A refresh is already running').waitFor();
    await alert.getByRole('link', { name: 'Open the running job' }).click();
    await page.waitForURL(new RegExp(`/rl-jobs/${runningJob}$`));
    await w.expectAccessible();
  }, 60_000);
});
