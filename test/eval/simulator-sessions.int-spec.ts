import { parseProfilesJsonl } from '@echoloop/sentient';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { type EvalRunnerFixture, startEvalRunner } from './eval-runner-fixture';

const { profiles } = parseProfilesJsonl(readFileSync('data/sentient/profiles.jsonl', 'utf8'));
const [warming, cooling] = profiles.filter((p) => p.pool === 'train');
const benchmark = profiles.find((p) => p.pool === 'benchmark');

/** The simulator over HTTP, and the Python VeRL interaction that RL rollouts use to reach it. */
describe('simulator sessions for RL rollouts', () => {
  let f: EvalRunnerFixture;

  beforeAll(async () => {
    f = await startEvalRunner({
      database: 'simsessions',
      model: 'simulator',
      reply: (request) => {
        const schema = (request.response_format as { json_schema?: { name: string } } | undefined)
          ?.json_schema?.name;
        const text = JSON.stringify(request.messages);
        const change = text.includes(`Name: ${warming?.persona.name}`) ? 10 : -10;
        if (schema === 'sentient_analysis') {
          return JSON.stringify({ content: 'c', goalFit: 'g', innerActivity: 'i', feeling: 'f', change });
        }
        return JSON.stringify({ thinking: 't', draft: 'd', response: 'mm, go on', goodbye: false });
      },
    });
  });

  afterAll(() => f?.stop());

  const call: EvalRunnerFixture['call'] = (...args) => f.call(...args);

  it('opens a session on a training profile, takes replies one at a time and stops at 100', async () => {
    expect((await call('POST', '/v1/simulator/sessions', { profileId: warming?.id }, null)).status).toBe(401);
    expect((await call('POST', '/v1/simulator/sessions', { profileId: 'nobody' })).body.error.code).toBe(
      'unknown_profile',
    );
    expect(
      (await call('POST', '/v1/simulator/sessions', { profileId: warming?.id, startScore: 5 })).status,
    ).toBe(400);
    const opened = await call('POST', '/v1/simulator/sessions', { profileId: warming?.id });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ score: 30, bucket: 'C', turns: 0, done: false });
    expect(opened.body.userMessage).toBe(warming?.firstMessage ?? expect.any(String));

    const scores: number[] = [];
    let last = opened.body;
    while (!last.done) {
      last = (
        await call('POST', `/v1/simulator/sessions/${opened.body.id}/turns`, {
          reply: '<think>x</think>I see.',
        })
      ).body;
      scores.push(last.score);
    }
    expect(scores).toEqual([40, 50, 60, 70, 80, 90, 100]);
    expect(last).toMatchObject({ endReason: 'score_max', reward: 1, turnScore: 1, turns: 7 });
    const ended = await call('POST', `/v1/simulator/sessions/${opened.body.id}/turns`, { reply: 'more?' });
    expect(ended).toMatchObject({ status: 409, body: { error: { code: 'session_ended' } } });

    const stored = await call('GET', `/v1/simulator/sessions/${opened.body.id}`);
    expect(stored.body.session.trace).toHaveLength(7);
    expect(stored.body.session.history[1]).toEqual({ role: 'assistant', content: 'I see.' });
  });

  it('answers 503 while the simulator model is down and leaves the session as it was for a retry', async () => {
    const opened = await call('POST', '/v1/simulator/sessions', { profileId: warming?.id });
    f.vllm.setFaults({ failWith: { status: 503, message: 'overloaded' } });
    const failed = await call('POST', `/v1/simulator/sessions/${opened.body.id}/turns`, { reply: 'hello' });
    f.vllm.setFaults(undefined);
    expect(failed.status).toBe(503);
    expect((await call('GET', `/v1/simulator/sessions/${opened.body.id}`)).body).toMatchObject({
      turns: 0,
      score: 30,
    });
    const turn = (reply: string, n: number) =>
      call('POST', `/v1/simulator/sessions/${opened.body.id}/turns`, { reply, turn: n });
    const retried = await turn('hello', 1);
    expect(retried.body).toMatchObject({ turns: 1, score: 40 });
    // Its answer lost on the way back, the client sends turn 1 again: same answer, no second turn taken.
    expect(await turn('hello', 1)).toMatchObject({ status: 201, body: { turns: 1, score: 40 } });
    expect(await turn('something else', 1)).toMatchObject({
      status: 409,
      body: { error: { code: 'turn_mismatch' } },
    });
    expect((await turn('skipping ahead', 3)).status).toBe(409);
    expect((await turn('next', 2)).body).toMatchObject({ turns: 2, score: 50 });
  });

  it('takes a turn once when the same reply races itself, and refuses a different one', async () => {
    const opened = await call('POST', '/v1/simulator/sessions', { profileId: warming?.id });
    const turn = (reply: string) =>
      call('POST', `/v1/simulator/sessions/${opened.body.id}/turns`, { reply, turn: 1 });
    f.vllm.setFaults({ delayBeforeFirstTokenMs: 150 });
    const [first, retry] = await Promise.all([turn('same reply'), turn('same reply')]);
    f.vllm.setFaults(undefined);
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(retry.body).toEqual(first.body);
    const stored = await call('GET', `/v1/simulator/sessions/${opened.body.id}`);
    expect(stored.body.session.trace).toHaveLength(1);
    expect((await turn('a different reply')).body.error.code).toBe('turn_mismatch');
  });

  it('rejects a reply that is only think text, and a model that refuses every call, without storing a turn', async () => {
    const opened = await call('POST', '/v1/simulator/sessions', { profileId: warming?.id });
    const path = `/v1/simulator/sessions/${opened.body.id}/turns`;
    const empty = await call('POST', path, { reply: '<think>nothing to say</think>  ' });
    expect(empty).toMatchObject({ status: 422, body: { error: { code: 'empty_reply' } } });
    f.vllm.setFaults({ failWith: { status: 404, message: 'The model `simulator` does not exist.' } });
    const refused = await call('POST', path, { reply: 'hello' });
    f.vllm.setFaults(undefined);
    // 5xx bodies carry no details (they are logged): the code says an upstream refused.
    expect(refused).toMatchObject({ status: 502, body: { error: { code: 'bad_gateway' } } });
    expect((await call('GET', `/v1/simulator/sessions/${opened.body.id}`)).body).toMatchObject({
      turns: 0,
      done: false,
    });
  });

  it('drives whole rollouts from the Python VeRL interaction', async () => {
    const run = promisify(execFile);
    const result = await run(
      'bash',
      ['tools/python/check.sh', 'pytest', 'tests/test_sentient_interaction.py', '-rs'],
      {
        env: {
          ...process.env,
          ECHOLOOP_SIMULATOR_URL: f.runner.url,
          ECHOLOOP_SIMULATOR_KEY: f.key,
          ECHOLOOP_TEST_PROFILES: [warming?.id, cooling?.id, benchmark?.id].join(','),
        },
      },
    ).catch((error: { stdout: string; stderr: string }) => error);
    // Every test ran: none skipped for want of the service.
    expect(result.stdout).toMatch(/\b4 passed in /);
    expect(result.stdout).not.toMatch(/skipped|failed|error/);
  }, 60_000);
});
