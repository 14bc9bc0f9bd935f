import { chatFeedbackV2, createEvent } from '@echoloop/contracts';
import type { ChatCompletionRequest } from '@echoloop/openai-compat';
import {
  adapterNamesOf,
  type AppProcess,
  type FakeVllm,
  replyByRules,
  startApp,
  startFakeVllm,
  uniqueName,
  waitFor,
} from '@echoloop/testing';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { insertApiKey } from '../api-keys/insert-api-key';
import { MIRA_CARD } from '../chat/chat-fixture';
import {
  DEFAULT_JUDGE_RULES,
  JUDGE_SYSTEM,
  type LabellerFixture,
  startLabellerFixture,
  waitFinished,
} from '../labeller/labeller-fixture';

const run = promisify(execFile);
export const ROOT = path.resolve(__dirname, '../..');
/** The local model server and Ray head of the stack (tools/stack/stack.sh up). */
export const MODEL_URL = process.env['MODEL_BASE_URL'] ?? 'http://127.0.0.1:18000/v1';
export const RAY_URL = process.env['RAY_DASHBOARD_URL'] ?? 'http://127.0.0.1:8265';
export const BASE_MODEL = 'smollm2-135m-instruct';

/** The training environment's Python (built once per machine by the project's script). */
export async function trainPython(): Promise<string> {
  const { stdout } = await run('bash', [path.join(ROOT, 'tools/python/venv.sh'), 'train'], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim();
}

export interface Response {
  status: number;
  body: any;
}

export async function call(
  base: string,
  method: string,
  route: string,
  options: { key?: string; token?: string; body?: unknown } = {},
): Promise<Response> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(options.key && { 'x-api-key': options.key }),
      ...(options.token && { authorization: `Bearer ${options.token}` }),
    },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text };
}

/**
 * Unloads from the stack's engine every adapter named after one of this database's checkpoints: the engine outlives
 * the test's database, and nothing else would ever unload them.
 */
export async function unloadAdaptersOf(db: { query(sql: string): Promise<unknown> }): Promise<void> {
  for (const name of await adapterNamesOf(db)) {
    await call(MODEL_URL, 'POST', '/unload_lora_adapter', { body: { lora_name: name } });
  }
}

/** A user in distress, a warm reply the user kept and a dismissive one they swiped away. */
const EXCHANGES = [
  [
    'I feel so alone since I moved here.',
    'That sounds really lonely. I am here with you. What has been hardest?',
  ],
  [
    'My exam went badly and I feel stupid.',
    'I am so sorry. One exam does not define you. Want to talk it through?',
  ],
  ['I had a fight with my sister.', 'That hurts, especially with family. How are you feeling about it now?'],
  [
    'Work has been crushing me lately.',
    'That sounds exhausting. You deserve rest. What is weighing on you most?',
  ],
  [
    'Nobody remembered my birthday.',
    'Oh, that really stings. Happy birthday from me. How would you like to celebrate?',
  ],
];
const DISMISSIVE = 'Whatever. Not my problem, deal with it.';
/**
 * The drills' users, each with a prompt of their own: the gate answers the held-out users' prompts greedily, so a
 * prompt shared by several users is one measurement counted several times, and a guard's interval over 5 distinct
 * prompts (what cycling EXCHANGES gave) passed or failed on which 5 they were.
 */
const SITUATIONS: readonly (readonly [string, string])[] = [
  ['I feel so alone since I moved here.', 'That sounds really lonely. What has been hardest?'],
  ['My exam went badly and I feel stupid.', 'I am so sorry. One exam does not define you.'],
  ['I had a fight with my sister.', 'That hurts, especially with family. How are you feeling now?'],
  ['Work has been crushing me lately.', 'That sounds exhausting. What is weighing on you most?'],
  ['Nobody remembered my birthday.', 'Oh, that really stings. I am here with you.'],
  ['My dog died last week.', 'I am so sorry. Losing a friend like that is heartbreaking.'],
  ['I got laid off today.', 'That is a shock. How are you holding up?'],
  ['My best friend stopped talking to me.', 'That sounds painful and confusing. Do you know why?'],
  ['I cannot sleep because I keep worrying.', 'That sounds draining. What keeps coming back to you?'],
  ['My parents are getting divorced.', 'That is a lot to carry. How are you feeling about it?'],
  ['I failed my driving test again.', 'That is frustrating. You will get there. What went wrong?'],
  ['My girlfriend broke up with me.', 'I am sorry, that hurts. I am here for you.'],
  ['I feel invisible at school.', 'That sounds lonely. You matter. When did it start?'],
  ['My grandmother is in hospital.', 'I am sorry. That must be frightening. How is she?'],
  ['I moved abroad and miss my family.', 'Missing them sounds hard. When did you last talk?'],
  ['I keep messing up at my new job.', 'New jobs are hard. I hear you. What happened?'],
  ['My friends went on a trip without me.', 'That sounds hurtful. How did you find out?'],
  ['I have been feeling anxious all week.', 'I am sorry it has been so heavy. What set it off?'],
  ['My project got rejected.', 'That is disappointing after your work. How do you feel?'],
  ['I feel like a burden to everyone.', 'I am sorry you feel that way. You are not a burden.'],
  ['My roommate is always yelling.', 'That sounds stressful to live with. Are you safe?'],
  ['I lost my wallet and my keys.', 'What a rotten day. I am sorry. Can I help you think?'],
  ['My coach benched me for the season.', 'That stings. I hear how much it matters to you.'],
  ['I said something stupid at dinner.', 'We all do. It sounds like it is on your mind.'],
  ['My health test results scare me.', 'That sounds frightening. I am here with you.'],
];
const DRILL_EXCHANGES = SITUATIONS.flatMap(([user, warm]) => [
  [user, warm],
  [`${user} I do not know what to do.`, warm],
]);
/** The reply an empathy judge is asked about, lower-cased (null for the other judges). */
function empathyReply(request: ChatCompletionRequest): string | null {
  const text = request.messages.map((m) => m.content).join('\n');
  if (!text.includes(JUDGE_SYSTEM.empathy)) return null;
  return (/<reply>\n([\s\S]*?)\n<\/reply>/.exec(text)?.[1] ?? '').toLowerCase();
}

/** What a warm reply says; the empathy judge below counts them. */
export const WARM_PHRASES = ['sorry', 'sound', 'feel', 'hear', '?', 'here with you', 'here for you'];

const warmPhrases = (reply: string) =>
  WARM_PHRASES.filter((phrase) => reply.toLowerCase().includes(phrase)).length;

/**
 * An empathy judge as a test can predict it (the drills and GRPO set it; the other refreshes keep the labeller
 * fixture's judges, which give every reply a 4), graded: one point over the floor (1: cold or off-topic) for each warm
 * phrase a reply uses, up to 5. A dismissive or garbled reply gets 1; replies sampled from the same policy differ on
 * it, which is what GRPO learns from. Like real judges it does not count repetition; the other judges answer as
 * usual.
 */
export const warmthJudge = (request: ChatCompletionRequest): string => {
  const reply = empathyReply(request);
  if (reply === null) return replyByRules(DEFAULT_JUDGE_RULES)(request);
  const grade = Math.min(5, 1 + warmPhrases(reply));
  return `Warm phrases: ${grade - 1}.\nVerdict: ${grade}`;
};

/**
 * A simulated user as a test can predict it (GRPO sets it): its mood moves by 5 for each warm phrase of the
 * companion's latest reply, from -5 for none (a cold or garbled reply upsets it), up to the analyser's cap of 10, and
 * it never says goodbye, so a conversation lasts the turns it was opened with. Replies sampled from the same policy
 * move it differently, which is what GRPO learns from.
 */
export const warmthSimulator = (request: ChatCompletionRequest): string => {
  const schema = (request.response_format as { json_schema?: { name: string } } | undefined)?.json_schema
    ?.name;
  if (schema !== 'sentient_analysis') {
    return JSON.stringify({ thinking: 't', draft: 'd', response: 'It is still on my mind.', goodbye: false });
  }
  const shown = request.messages.map((m) => m.content).join('\n');
  const history = /<conversation>\n([\s\S]*?)\n<\/conversation>/.exec(shown)?.[1] ?? '[]';
  const latest = (JSON.parse(history) as { role: string; content: string }[]).at(-1)?.content ?? '';
  const change = Math.min(5 * warmPhrases(latest) - 5, 10);
  return JSON.stringify({ content: 'c', goalFit: 'g', innerActivity: 'i', feeling: 'f', change });
};

/**
 * The failure the gate must refuse: one sentence over and over (a refresh once shipped this), and one a reward that
 * counts warm words likes. It opens as this model's answers already tend to ("I'm sorry..."), so what the drill's few
 * steps must learn is the loop, not a new first sentence. Measured on 15 held-out prompts here: with "I'm not sure
 * what to say." the candidate's repeated-sentence share was 0.35 (95% CI from 0.14), too close to the guard's
 * tolerance of 0.05, and one CI run fell under it; with this one 0.57 (from 0.43), while its held-out reward rose
 * (+0.12), so only the degeneration guard stands between it and users.
 */
export const LOOPING = "I'm so sorry to hear that. ".repeat(7).trim();

/** Which reply of each seeded pair the user kept: the warm one (as people do), or a bad one (the drills). */
export type Kept = 'warm' | 'dismissive' | 'looping';

/**
 * The whole loop's services on one database: the reward labeller (a scripted judge), the gateway and the
 * eval-runner over the stack's real local model server (the eval-runner's simulated user is scripted to leave after
 * one reply, so the gate is quick), and an experimenter's API key valid on each of them.
 */
export interface RefreshFixture {
  labeller: LabellerFixture;
  gateway: AppProcess;
  evalRunner: AppProcess;
  simulator: FakeVllm;
  key: string;
  workDir: string;
  python: string;
  characterId: string;
  orchestratorEnv: Record<string, string>;
  /**
   * `pairs` users each with a kept warm reply and a discarded cold one, labelled and with the swipe applied. Their
   * ids are fixed, so the split by user is the same every run: of the first 20, 10 train, 7 validate and 3 are
   * held out (the development pseudonym key and the default RL_SPLIT_SEED). The drills' users (`kept` not warm)
   * each bring a prompt of their own, up to 50. Resolves to the users' ids.
   */
  seedPreferences(pairs: number, kept?: Kept): Promise<string[]>;
  /** These users withdrew their training consent: no later snapshot reads their turns. */
  withdrawConsent(userIds: readonly string[]): Promise<void>;
  startOrchestrator(env?: Record<string, string>): Promise<AppProcess>;
  close(): Promise<void>;
}

export async function startRefreshFixture(): Promise<RefreshFixture> {
  const python = await trainPython();
  const labeller = await startLabellerFixture();
  const database = labeller.env['DATABASE_URL'] ?? '';
  const { db } = labeller;
  const { key } = await insertApiKey(db, {
    name: 'rl-orchestrator',
    roles: ['experimenter'],
    services: ['chat-gateway', 'eval-runner', 'reward-labeller', 'rl-orchestrator'],
  });
  const gateway = await startApp('chat-gateway', {
    DATABASE_URL: database,
    LLM_BASE_URL: MODEL_URL,
    LLM_MODEL: BASE_MODEL,
    LLM_MAX_TOKENS: '24',
    LLM_FIRST_TOKEN_TIMEOUT_MS: '60000',
    AUTH_ATTEMPTS_PER_MINUTE: '10000',
    // Experiments review their guardrails and primary metric often, so a decision shows within a test.
    EXPERIMENT_GUARDRAIL_CHECK_MS: '500',
  });
  const simulator = await startFakeVllm({
    model: 'simulator',
    reply: (request) => {
      const schema = (request.response_format as { json_schema?: { name: string } } | undefined)?.json_schema
        ?.name;
      if (schema === 'sentient_analysis') {
        return JSON.stringify({ content: 'c', goalFit: 'g', innerActivity: 'i', feeling: 'f', change: 5 });
      }
      return JSON.stringify({ thinking: 't', draft: 'd', response: 'thanks, bye', goodbye: true });
    },
  });
  const evalRunner = await startApp('eval-runner', {
    DATABASE_URL: database,
    SIMULATOR_BASE_URL: simulator.url,
    SIMULATOR_MODEL: 'simulator',
    JUDGE_BASE_URL: simulator.url,
    JUDGE_MODEL: 'simulator',
    LLM_BASE_URL: MODEL_URL,
    EVAL_MAX_TOKENS: '24',
  });
  const [{ id: characterId }] = (await db.query(
    `INSERT INTO characters (name, spec, card, created_by) SELECT 'Mira', 'chara_card_v2', $1, id FROM users LIMIT 1 RETURNING id`,
    [JSON.stringify(MIRA_CARD)],
  )) as [{ id: string }];
  const workDir = await mkdtemp(path.join(tmpdir(), 'echoloop-rl-'));
  const orchestratorEnv = {
    DATABASE_URL: database,
    SERVICE_API_KEY: key,
    GATEWAY_URL: gateway.url,
    EVAL_RUNNER_URL: evalRunner.url,
    LABELLER_URL: labeller.labeller.url,
    LLM_BASE_URL: MODEL_URL,
    RL_RUNNER: 'ray',
    RAY_DASHBOARD_URL: RAY_URL,
    RL_PYTHON: python,
    RL_PYTHON_PATH: path.join(ROOT, 'python'),
    RL_BASE_GGUF: path.join(ROOT, '.infra/models/smollm2-135m-instruct.Q4_1.gguf'),
    RL_WORK_DIR: workDir,
    RL_MIN_PAIRS: '6',
    // The job shares the machine with the suite and the other suites (RL_TRAIN_THREADS in the README).
    RL_TRAIN_THREADS: '1',
    // 20 seeded users leave about 4 for validation (the default minimum, 16, is for real traffic).
    RL_MIN_VALIDATION_PAIRS: '2',
    // Later refreshes here find no new pairs since their parent's snapshot: they replay all the older ones.
    RL_REPLAY_FRACTION: '1',
    RL_JOB_POLL_SECONDS: '1',
    RL_THRESHOLD_POLL_SECONDS: '1',
    TRAINING_CONSENT_DEFAULT: 'true',
    // The least that forms an interval: it only bounds large losses, which is what this suite drills.
    GATE_PROFILES: '2',
    GATE_HELDOUT_ITEMS: '2',
    GATE_MIN_ITEMS: '2',
    GATE_MAX_TOKENS: '32',
    EXPERIMENT_TRAFFIC_PERCENT: '50',
  };
  const orchestrators: AppProcess[] = [];
  let seeded = 0;

  return {
    labeller,
    gateway,
    evalRunner,
    simulator,
    key,
    workDir,
    python,
    characterId,
    orchestratorEnv,
    async seedPreferences(pairs, choice = 'warm') {
      // Every pair is published first and waited for after, so the labeller works through them together.
      const swipes: { kept: string; swiped: string }[] = [];
      const users: string[] = [];
      for (let i = 0; i < pairs; i += 1) {
        const exchanges = choice === 'warm' ? EXCHANGES : DRILL_EXCHANGES;
        const [user = '', warm = ''] = exchanges[i % exchanges.length] ?? [];
        const [good, bad] =
          choice === 'warm' ? [warm, DISMISSIVE] : [choice === 'looping' ? LOOPING : DISMISSIVE, warm];
        const userId = `5eed0000-0000-4000-8000-${String(seeded++).padStart(12, '0')}`;
        users.push(userId);
        const conversation = await labeller.conversation(userId);
        const kept = await conversation.turn(user, good);
        const swiped = await conversation.turn('', bad, { sameUserMessageAs: kept });
        await conversation.publish(kept, swiped);
        await labeller.publisher.publish(
          chatFeedbackV2,
          createEvent(
            chatFeedbackV2,
            {
              kind: 'swipe',
              conversationId: conversation.id,
              userId: conversation.userId,
              parentId: kept.userMessage.id,
              selectedTurnId: kept.turnId,
              rejectedTurnIds: [swiped.turnId],
            },
            'test',
          ),
          conversation.id,
        );
        swipes.push({ kept: kept.turnId, swiped: swiped.turnId });
      }
      await Promise.all(
        swipes.map(async ({ kept, swiped }) => {
          await waitFinished(labeller, kept, 120_000);
          await waitFinished(labeller, swiped, 120_000);
          await waitFor(
            async () => {
              const [row] = (await db.query(
                `SELECT signals->'kept' AS kept FROM reward_turns WHERE turn_id = $1`,
                [swiped],
              )) as [{ kept: boolean | null }];
              return row.kept === false;
            },
            { what: 'the swipe applied', timeoutMs: 60_000 },
          );
        }),
      );
      return users;
    },
    async withdrawConsent(userIds) {
      await db.query(`UPDATE users SET training_consent = false WHERE id = ANY($1::uuid[])`, [userIds]);
    },
    async startOrchestrator(env = {}) {
      const app = await startApp('rl-orchestrator', {
        ...orchestratorEnv,
        KAFKA_CLIENT_ID: uniqueName('rl'),
        ...env,
      });
      orchestrators.push(app);
      return app;
    },
    async close() {
      await Promise.allSettled(orchestrators.map((o) => o.stop()));
      await unloadAdaptersOf(db);
      await Promise.allSettled([gateway.stop(), evalRunner.stop()]);
      await simulator.close();
      await labeller.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
