import { parseProfilesJsonl } from '@echoloop/sentient';
import { startFakeVllm, waitFor } from '@echoloop/testing';
import { insertApiKey } from '../api-keys/insert-api-key';
import { readFileSync } from 'node:fs';
import { type EvalRunnerFixture, startEvalRunner } from './eval-runner-fixture';

const { profiles } = parseProfilesJsonl(readFileSync('data/sentient/profiles.jsonl', 'utf8'));
const chosen = profiles.filter((p) => p.pool === 'benchmark').slice(0, 3);
const CHANGE = [10, -10, 0];

describe('POST /v1/evaluations on the real PostgreSQL', () => {
  let f: EvalRunnerFixture;

  beforeAll(async () => {
    f = await startEvalRunner({
      database: 'eval',
      model: 'candidate',
      reply: (request) => {
        const schema = (request.response_format as { json_schema?: { name: string } } | undefined)
          ?.json_schema?.name;
        const who = chosen.findIndex((p) =>
          JSON.stringify(request.messages).includes(`Name: ${p.persona.name}`),
        );
        if (schema === 'sentient_analysis') {
          return JSON.stringify({
            content: 'c',
            goalFit: 'g',
            innerActivity: 'i',
            feeling: 'f',
            change: CHANGE[who],
          });
        }
        if (schema === 'sentient_user_turn') {
          return JSON.stringify({ thinking: 't', draft: 'd', response: 'ok then', goodbye: false });
        }
        if (schema === 'epm_turn_rating') {
          // The EPM judge: the first user is helped on every axis, the second harmed, the third neither.
          const [prog, neg] = (
            [
              [2, 0],
              [0, -2],
              [0, 0],
            ] as const
          )[who] ?? [0, 0];
          const axis = { prog, progEvidence: 'p', neg, negEvidence: 'n' };
          return JSON.stringify({ C: axis, A: axis, P: axis });
        }
        return 'I hear you.';
      },
      before: (db, vllm) =>
        db.query(
          `INSERT INTO checkpoints (id, model_name, endpoints, context_tokens, status) VALUES ('cand', 'candidate', $1, 4096, 'active')`,
          [JSON.stringify([{ baseUrl: vllm.url }])],
        ),
    });
  });

  afterAll(() => f?.stop());

  const call: EvalRunnerFixture['call'] = (...args) => f.call(...args);
  const finished = (id: string) =>
    waitFor(
      async () => {
        const res = await call('GET', `/v1/evaluations/${id}`);
        return res.body?.status === 'finished' && res.body;
      },
      { timeoutMs: 60_000, what: `evaluation ${id} to finish` },
    );

  it('runs a checkpoint on simulated users in the background, stores the result, and serves JSON and HTML reports', async () => {
    expect((await call('POST', '/v1/evaluations', { checkpointId: 'cand' }, null)).status).toBe(401);
    expect((await call('POST', '/v1/evaluations', { checkpointId: 'nope' })).status).toBe(422);
    const created = await call('POST', '/v1/evaluations', {
      checkpointId: 'cand',
      profiles: chosen.map((p) => p.id),
    });
    expect(created.status).toBe(202);
    const evaluation = await finished(created.body.id);
    expect(evaluation.simulator).toEqual({ baseUrl: f.vllm.url, model: 'candidate' });
    expect(evaluation.metrics).toMatchObject({ count: 3, successes: 1, failures: 1, errors: 0 });
    expect(evaluation.metrics.meanFinalScore).toBeCloseTo(140 / 3, 10);
    const html = await call('GET', `/v1/evaluations/${created.body.id}/report.html`);
    expect(html.status).toBe(200);
    expect(html.text.match(/<svg /g)).toHaveLength(3);

    // A second run (here: two of the profiles) compared side by side with the first.
    const second = await call('POST', '/v1/evaluations', {
      checkpointId: 'cand',
      profiles: chosen.slice(0, 2).map((p) => p.id),
    });
    await finished(second.body.id);
    const compared = await call('GET', `/v1/evaluations/compare?a=${created.body.id}&b=${second.body.id}`);
    expect(compared.body.a.metrics.count).toBe(3);
    expect(compared.body.b.metrics).toMatchObject({ count: 2, meanFinalScore: 50 });
  }, 120_000);

  it('runs the EPM C/A/P vector with the pinned judge and reports its verdicts', async () => {
    const created = await call('POST', '/v1/evaluations', {
      checkpointId: 'cand',
      mode: 'epm',
      profiles: chosen.map((p) => p.id),
    });
    expect(created.status).toBe(202);
    const evaluation = await finished(created.body.id);
    expect(evaluation).toMatchObject({ mode: 'epm', judge: { baseUrl: f.vllm.url, model: 'candidate' } });
    const byId = Object.fromEntries(
      evaluation.report.episodes.map((e: { profileId: string }) => [e.profileId, e]),
    );
    // Helped on every axis: success at turn 12, the first turn it may be judged. Harmed: collapse after 5.
    expect(byId[chosen[0]!.id]).toMatchObject({ endReason: 'epm_success', turns: 12, epmVerdict: 'success' });
    expect(byId[chosen[1]!.id]).toMatchObject({ endReason: 'epm_failure', turns: 5, epmVerdict: 'failure' });
    expect(byId[chosen[2]!.id]).toMatchObject({ endReason: 'max_turns', turns: 45, epmVerdict: 'undecided' });
    expect(evaluation.report.epm).toMatchObject({ count: 3, successes: 1, failures: 1, undecided: 1 });
    const html = await call('GET', `/v1/evaluations/${created.body.id}/report.html`);
    expect(html.text).toContain('EPM C/A/P vector');
    expect(html.text).toContain('judge <code>candidate @');
  }, 120_000);

  it('takes only keys scoped to the eval-runner with the route role; expired and revoked keys at once', async () => {
    const code = async (key: string, method = 'POST', path = '/v1/evaluations') => {
      const res = await call(method, path, method === 'POST' ? { checkpointId: 'nope' } : undefined, key);
      return [res.status, res.body?.error?.code];
    };
    const labellerOnly = await insertApiKey(f.db, { roles: ['experimenter'], services: ['reward-labeller'] });
    expect(await code(labellerOnly.key)).toEqual([403, 'api_key_service_not_allowed']);
    const analyst = await insertApiKey(f.db, { roles: ['analyst'], services: ['eval-runner'] });
    expect(await code(analyst.key)).toEqual([403, 'api_key_role_not_allowed']);
    expect(await code(analyst.key, 'POST', '/v1/simulator/sessions')).toEqual([
      403,
      'api_key_role_not_allowed',
    ]);
    const missing = '/v1/evaluations/00000000-0000-4000-8000-000000000000';
    expect(await code(analyst.key, 'GET', missing)).toEqual([404, 'not_found']);
    await f.db.query(`UPDATE api_keys SET expires_at = now() WHERE id = $1`, [analyst.id]);
    expect(await code(analyst.key, 'GET', missing)).toEqual([401, 'api_key_expired']);
    const experimenter = await insertApiKey(f.db, { roles: ['experimenter'], services: ['eval-runner'] });
    expect(await code(experimenter.key)).toEqual([422, 'invalid_checkpoint']);
    await f.db.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [experimenter.id]);
    expect(await code(experimenter.key)).toEqual([401, 'api_key_revoked']);
  });

  it('refuses a stored checkpoint whose host the configuration does not allow, sending it nothing', async () => {
    const elsewhere = await startFakeVllm({ model: 'candidate', reply: 'hi' });
    try {
      await f.db.query(
        `INSERT INTO checkpoints (id, model_name, endpoints, status) VALUES ('moved', 'candidate', $1, 'active')`,
        [JSON.stringify([{ baseUrl: elsewhere.url, apiKeyEnv: 'LLM_API_KEY' }])],
      );
      const refused = await call('POST', '/v1/evaluations', {
        checkpointId: 'moved',
        profiles: [chosen[0]!.id],
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({
        code: 'checkpoint_endpoint_not_allowed',
        details: [{ path: 'endpoints.0.baseUrl' }],
      });
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });
});
