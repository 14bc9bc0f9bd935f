import { parseProfilesJsonl } from '@echoloop/sentient';
import { replyByRules } from '@echoloop/testing';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { insertApiKey } from '../api-keys/insert-api-key';
import { type EvalRunnerFixture, startEvalRunner } from '../eval/eval-runner-fixture';
import {
  DEFAULT_JUDGE_RULES,
  JUDGE_SYSTEM,
  type LabellerFixture,
  startLabellerFixture,
} from '../labeller/labeller-fixture';

const run = promisify(execFile);
const { profiles } = parseProfilesJsonl(readFileSync('data/sentient/profiles.jsonl', 'utf8'));
const warming = profiles.find((p) => p.pool === 'train');

/**
 * The verl-grpo template's runnable parts against the live services: VeRL's custom reward function scoring replies
 * with the real reward labeller, and the rendered interaction config's sentient user against the real eval-runner.
 */
describe('verl-grpo: reward function and rendered interaction on the live services', () => {
  let labeller: LabellerFixture;
  let runner: EvalRunnerFixture;
  let labellerKey: string;

  beforeAll(async () => {
    labeller = await startLabellerFixture();
    // Deterministic judges: a dismissive reply is judged cold and robotic; the reference makes empathy a tie.
    labeller.judge.setReply(
      replyByRules([
        {
          when: { systemIncludes: JUDGE_SYSTEM.empathy, anyMessageIncludes: 'You worked so hard' },
          reply: 'Similar.\nVerdict: tie',
        },
        {
          when: { systemIncludes: JUDGE_SYSTEM.empathy, anyMessageIncludes: 'whatever' },
          reply: 'Dismissive.\nVerdict: 1',
        },
        {
          when: { systemIncludes: JUDGE_SYSTEM.humanlike, anyMessageIncludes: 'whatever' },
          reply: 'Flat.\nVerdict: robotic',
        },
        ...DEFAULT_JUDGE_RULES,
      ]),
    );
    ({ key: labellerKey } = await insertApiKey(labeller.db, {
      name: 'verl-grpo',
      roles: ['experimenter'],
      services: ['reward-labeller'],
    }));
    runner = await startEvalRunner({
      database: 'verlgrpo',
      model: 'simulator',
      reply: (request) => {
        const schema = (request.response_format as { json_schema?: { name: string } } | undefined)
          ?.json_schema?.name;
        const change = JSON.stringify(request.messages).includes(`Name: ${warming?.persona.name}`) ? 10 : -10;
        if (schema === 'sentient_analysis') {
          return JSON.stringify({ content: 'c', goalFit: 'g', innerActivity: 'i', feeling: 'f', change });
        }
        return JSON.stringify({ thinking: 't', draft: 'd', response: 'mm, go on', goodbye: false });
      },
    });
  });

  afterAll(async () => {
    await runner?.stop();
    await labeller?.close();
  });

  it('scores replies with the labeller and runs the rendered sentient user for one episode (Python)', async () => {
    expect(warming).toBeDefined();
    const result = await run(
      'bash',
      ['tools/python/check.sh', 'pytest', 'tests/test_grpo_template.py', 'tests/test_reward_fn.py', '-rs'],
      {
        env: {
          ...process.env,
          ECHOLOOP_LABELLER_URL: labeller.labeller.url,
          ECHOLOOP_LABELLER_KEY: labellerKey,
          ECHOLOOP_SIMULATOR_URL: runner.runner.url,
          ECHOLOOP_SIMULATOR_KEY: runner.key,
          ECHOLOOP_TEST_TRAIN_PROFILE: warming?.id ?? '',
        },
      },
    ).catch((error: { stdout: string; stderr: string }) => error);
    // Every test ran: none skipped for want of a live service.
    expect(result.stdout).toMatch(/\b13 passed(, \d+ subtests passed)? in /);
    expect(result.stdout).not.toMatch(/skipped|failed|error/);
    // The reward function reached the labeller's scoring endpoint, not only the judge fixture's defaults.
    const scored = labeller.judge.requests.filter((r) => JSON.stringify(r.body).includes('whatever'));
    expect(scored.length).toBeGreaterThan(0);
  }, 120_000);
});
