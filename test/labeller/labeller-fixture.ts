import { chatTurnCompletedV1, createEvent, type PayloadOf } from '@echoloop/contracts';
import { dataSourceOptions } from '@echoloop/persistence';
import { EventPublisher } from '@echoloop/platform';
import {
  createTestDatabase,
  freshLabellerGroup,
  replyByRules,
  startApp,
  startFakeVllm,
  testKafka,
  uniqueName,
  waitFor,
  type AppProcess,
  type FakeVllm,
  type ReplyRule,
  type TestDatabase,
} from '@echoloop/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';

export type TurnPayload = PayloadOf<typeof chatTurnCompletedV1>;

export const JUDGE_SYSTEM = {
  empathy: 'how empathetic',
  humanlike: 'like a machine',
  emotion: 'You track the emotional state',
};

/** Judges that answer sensibly unless a test says otherwise. */
export const DEFAULT_JUDGE_RULES: ReplyRule[] = [
  { when: { systemIncludes: JUDGE_SYSTEM.empathy }, reply: 'It names the feeling and asks.\nVerdict: 4' },
  {
    when: { systemIncludes: JUDGE_SYSTEM.humanlike },
    reply: 'Fits the history, sounds natural.\nVerdict: humanlike',
  },
  {
    when: { systemIncludes: JUDGE_SYSTEM.emotion, anyMessageIncludes: 'thanks' },
    reply: 'They feel heard and say so.\nChange: +6',
  },
  { when: { systemIncludes: JUDGE_SYSTEM.emotion }, reply: 'They shrug it off.\nChange: -3' },
];

export interface LabellerFixture {
  db: DataSource;
  judge: FakeVllm;
  labeller: AppProcess;
  publisher: EventPublisher;
  groupId: string;
  env: Record<string, string>;
  /** A new conversation of a new user: its turns are written as the gateway would, then published. */
  /** A new user's conversation; `userId` fixes the user's id (a split by user then lands the same every run). */
  conversation(userId?: string): Promise<Conversation>;
  restart(): Promise<void>;
  finished(turnId: string): Promise<boolean>;
  labels(turnId: string): Promise<Label[]>;
  close(): Promise<void>;
}

export interface Label {
  component: string;
  status: string;
  value: number | null;
  label: string | null;
  judge_model: string | null;
  prompt_version: string | null;
  raw_output: string | null;
  error: string | null;
  details: Record<string, any> | null;
}

export interface Conversation {
  id: string;
  userId: string;
  /** Stores a user message and its reply; returns the event payload (not published). */
  turn(user: string, reply: string, options?: { sameUserMessageAs?: TurnPayload }): Promise<TurnPayload>;
  publish(...turns: TurnPayload[]): Promise<void>;
}

export async function startLabellerFixture(extraEnv: Record<string, string> = {}): Promise<LabellerFixture> {
  const database: TestDatabase = await createTestDatabase('labeller');
  const db = await new DataSource(dataSourceOptions({ url: database.url })).initialize();
  await db.runMigrations();
  const judge = await startFakeVllm({ model: 'judge-model', reply: replyByRules(DEFAULT_JUDGE_RULES) });
  const groupId = await freshLabellerGroup();
  const env = {
    DATABASE_URL: database.url,
    LABELLER_GROUP_ID: groupId,
    JUDGE_BASE_URL: judge.url,
    JUDGE_MODEL: 'judge-model',
    JUDGE_TIMEOUT_MS: '800',
    JUDGE_RETRIES: '1',
    LEAVE_AFTER_MS: '1500',
    LEAVE_SWEEP_MS: '250',
    ...extraEnv,
  };
  let labeller = await startApp('reward-labeller', env);
  const publisher = new EventPublisher(testKafka('labeller-test'));
  const [{ id: characterAuthor }] = (await db.query(
    `INSERT INTO users (email, display_name, roles) VALUES ($1, 'Admin', '{admin}') RETURNING id`,
    [`${uniqueName('admin')}@example.com`],
  )) as { id: string }[] as [{ id: string }];
  const [{ id: characterId }] = (await db.query(
    `INSERT INTO characters (name, spec, card, created_by) VALUES ('Mira', 'chara_card_v2', '{}', $1) RETURNING id`,
    [characterAuthor],
  )) as [{ id: string }];

  return {
    db,
    judge,
    get labeller() {
      return labeller;
    },
    publisher,
    groupId,
    env,
    async conversation(fixedId) {
      // A given id may be a user of an earlier conversation: their next conversation.
      const [{ id: userId }] = (await db.query(
        `WITH made AS (
           INSERT INTO users (id, email, display_name) VALUES (COALESCE($2::uuid, gen_random_uuid()), $1, 'Sam')
           ON CONFLICT (id) DO NOTHING RETURNING id)
         SELECT id FROM made UNION ALL SELECT id FROM users WHERE id = $2::uuid LIMIT 1`,
        [`${uniqueName('user')}@example.com`, fixedId ?? null],
      )) as [{ id: string }];
      const [{ id }] = (await db.query(
        `INSERT INTO conversations (user_id, character_id, title) VALUES ($1, $2, 'chat') RETURNING id`,
        [userId, characterId],
      )) as [{ id: string }];
      const history: { role: 'user' | 'assistant'; content: string }[] = [];
      // Each message strictly after the previous one, as in a real conversation.
      let clock = Date.now();
      return {
        id,
        userId,
        async turn(user, reply, options) {
          const now = (clock = Math.max(Date.now(), clock + 10));
          clock += 5;
          const userMessage = options?.sameUserMessageAs?.userMessage ?? {
            id: randomUUID(),
            content: user,
            createdAt: new Date(now).toISOString(),
          };
          if (!options?.sameUserMessageAs) {
            await db.query(
              `INSERT INTO messages (id, conversation_id, role, content, created_at) VALUES ($1, $2, 'user', $3, $4)`,
              [userMessage.id, id, user, userMessage.createdAt],
            );
          }
          const replyId = randomUUID();
          const repliedAt = new Date(now + 5).toISOString();
          await db.query(
            `INSERT INTO messages (id, conversation_id, role, content, parent_id, created_at)
             VALUES ($1, $2, 'assistant', $3, $4, $5)`,
            [replyId, id, reply, userMessage.id, repliedAt],
          );
          const payload: TurnPayload = {
            turnId: replyId,
            conversationId: id,
            userId,
            characterId,
            checkpointId: 'base',
            experimentId: null,
            armId: null,
            userMessage,
            assistantMessage: {
              id: replyId,
              content: reply,
              createdAt: repliedAt,
              reasoning: null,
              finishReason: 'stop',
              usage: { promptTokens: 10, completionTokens: 5 },
            },
            history: options?.sameUserMessageAs ? options.sameUserMessageAs.history : [...history],
            personaSnapshot: {},
            timings: { ttftMs: 10, totalMs: 20 },
            safety: { flagged: false, categories: [] },
          };
          if (!options?.sameUserMessageAs) history.push({ role: 'user', content: user });
          history.push({ role: 'assistant', content: reply });
          return payload;
        },
        async publish(...turns) {
          for (const turn of turns) {
            await publisher.publish(chatTurnCompletedV1, createEvent(chatTurnCompletedV1, turn, 'test'), id);
          }
        },
      };
    },
    async restart() {
      labeller = await startApp('reward-labeller', env);
    },
    async finished(turnId) {
      const rows = (await db.query(
        `SELECT 1 FROM reward_turns WHERE turn_id = $1 AND 'labeller-v1' = ANY(labelled_versions)`,
        [turnId],
      )) as unknown[];
      return rows.length > 0;
    },
    labels: (turnId) =>
      db.query(
        `SELECT component, status, value, label, judge_model, prompt_version, raw_output, error, details
         FROM reward_labels WHERE turn_id = $1 ORDER BY component`,
        [turnId],
      ),
    async close() {
      await labeller.stop();
      await publisher.disconnect();
      await judge.close();
      await db.destroy();
      await database.drop();
    },
  };
}

export const waitFinished = (f: LabellerFixture, turnId: string, timeoutMs = 30_000) =>
  waitFor(() => f.finished(turnId), { timeoutMs, what: `turn ${turnId} to be labelled` });
