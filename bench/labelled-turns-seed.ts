// Synthetic labelled turns for the export benchmarks: consenting users with a conversation each, then turns (10
// messages of context each, four labels) added in batches of 50k, straight in SQL.
import type { Client } from 'pg';

/** 1,000 consenting users, each with a conversation with a character (one is made when there is none). */
export async function seedConversations(client: Client): Promise<void> {
  await client.query(`
    INSERT INTO users (email, display_name, training_consent)
    SELECT 'bench-seed-' || i || '@example.com', 'Bench ' || i, true FROM generate_series(1, 1000) i;
    INSERT INTO characters (name, spec, card, created_by)
    SELECT 'Mira', 'chara_card_v2', '{}', id FROM users WHERE NOT EXISTS (SELECT 1 FROM characters) LIMIT 1;
    INSERT INTO conversations (user_id, character_id, title)
    SELECT u.id, (SELECT id FROM characters ORDER BY created_at LIMIT 1), 'bench' FROM users u
     WHERE u.email LIKE 'bench-seed-%';`);
}

/** Adds turns until the database holds `target`, in batches of 50k, each with its messages and labels. */
export async function seedUpTo(client: Client, target: number, log: (line: string) => void): Promise<void> {
  const [{ n }] = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM reward_turns')).rows as [
    { n: number },
  ];
  for (let from = n; from < target; from += 50_000) {
    const count = Math.min(50_000, target - from);
    await client.query(
      `WITH conversation AS (
         SELECT array_agg(id ORDER BY id) AS ids, array_agg(user_id ORDER BY id) AS users FROM conversations
       ), turns AS (
         SELECT i, c.ids[1 + i % cardinality(c.ids)] AS conversation_id, c.users[1 + i % cardinality(c.ids)] AS user_id,
                gen_random_uuid() AS user_message_id, gen_random_uuid() AS reply_id,
                now() - make_interval(secs => $1 - i) AS at
           FROM generate_series($2::int, $2::int + $3::int - 1) AS i, conversation c
       ), user_messages AS (
         INSERT INTO messages (id, conversation_id, role, content, created_at)
         SELECT user_message_id, conversation_id, 'user', 'message ' || i || ' call me at +44 20 7946 0958', at
           FROM turns
       ), replies AS (
         INSERT INTO messages (id, conversation_id, role, content, parent_id, created_at)
         SELECT reply_id, conversation_id, 'assistant', 'A warm, careful reply number ' || i, user_message_id, at
           FROM turns
       ), labelled AS (
         INSERT INTO reward_turns (turn_id, conversation_id, user_id, user_message_id, checkpoint_id, turn,
                                   replied_at, signals, labelled_versions)
         SELECT reply_id, conversation_id, user_id, user_message_id, 'base',
                jsonb_build_object(
                  'characterId', '00000000-0000-4000-8000-000000000001',
                  'history', (SELECT jsonb_agg(jsonb_build_object('role', CASE WHEN k % 2 = 0 THEN 'user' ELSE 'assistant' END,
                                'content', 'earlier message ' || k || ' of a conversation about a long day at work'))
                              FROM generate_series(1, 10) k),
                  'userMessage', jsonb_build_object('id', user_message_id, 'content', 'message ' || i),
                  'assistantMessage', jsonb_build_object('id', reply_id, 'content', 'A warm, careful reply number ' || i),
                  'personaSnapshot', jsonb_build_object('schemaVersion', 1, 'fields', '{}'::jsonb)),
                at, jsonb_build_object('thumbs', CASE WHEN i % 7 = 0 THEN 1 END), '{labeller-v1}'
           FROM turns
         RETURNING turn_id
       )
       INSERT INTO reward_labels (turn_id, component, labeller_version, status, value)
       SELECT turn_id, component, 'labeller-v1', 'labelled', 0.5
         FROM labelled CROSS JOIN unnest(ARRAY['empathy', 'humanlike', 'live_emotion', 'implicit']) AS component`,
      [target, from, count],
    );
    log(`seeded ${from + count}/${target} turns`);
  }
}
