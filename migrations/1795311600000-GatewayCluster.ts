import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * What several gateway processes share through PostgreSQL: per-user turn gates (stream slots and the rate-limit
 * bucket), socket.io's table for large cross-process payloads (@socket.io/postgres-adapter), and triggers that
 * NOTIFY `echoloop_cache_changes` when a checkpoint, character or experiment changes, whoever changed it.
 */
export class GatewayCluster1795311600000 implements MigrationInterface {
  name = 'GatewayCluster1795311600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "turn_gates" (
                "user_id" uuid NOT NULL,
                "slots" jsonb NOT NULL DEFAULT '{}',
                "tokens" double precision NOT NULL,
                "refilled_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_turn_gates_user_id" PRIMARY KEY ("user_id"),
                CONSTRAINT "FK_turn_gates_user_id" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "socket_io_attachments" (
                "id" bigserial UNIQUE,
                "created_at" TIMESTAMP WITH TIME ZONE DEFAULT now(),
                "payload" bytea
            )
        `);
    await queryRunner.query(`
            CREATE FUNCTION echoloop_notify_cache_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              PERFORM pg_notify('echoloop_cache_changes', TG_ARGV[0] || ':' || coalesce(NEW.id, OLD.id)::text);
              RETURN NULL;
            END $$
        `);
    for (const [table, kind] of [
      ['checkpoints', 'checkpoint'],
      ['characters', 'character'],
      ['experiments', 'experiment'],
    ]) {
      await queryRunner.query(`
            CREATE TRIGGER "${table}_cache_change" AFTER INSERT OR UPDATE OR DELETE ON "${table}"
            FOR EACH ROW EXECUTE FUNCTION echoloop_notify_cache_change('${kind}')
        `);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['checkpoints', 'characters', 'experiments']) {
      await queryRunner.query(`DROP TRIGGER "${table}_cache_change" ON "${table}"`);
    }
    await queryRunner.query(`DROP FUNCTION echoloop_notify_cache_change()`);
    await queryRunner.query(`DROP TABLE "socket_io_attachments"`);
    await queryRunner.query(`DROP TABLE "turn_gates"`);
  }
}
