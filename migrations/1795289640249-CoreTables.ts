import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class CoreTables1795289640249 implements MigrationInterface {
  name = 'CoreTables1795289640249';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "users" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "email" text NOT NULL,
                "password_hash" text,
                "display_name" text NOT NULL,
                "roles" text array NOT NULL DEFAULT '{user}',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "UQ_97672ac88f789774dd47f7c8be3" UNIQUE ("email"),
                CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "characters" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "name" text NOT NULL,
                "spec" text NOT NULL,
                "card" jsonb NOT NULL,
                "created_by" uuid,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_9d731e05758f26b9315dac5e378" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "conversations" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "user_id" uuid NOT NULL,
                "character_id" uuid NOT NULL,
                "title" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_ee34f4f7ced4ec8681f26bf04ef" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "conversations_user_recent_idx" ON "conversations" ("user_id", "updated_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "messages" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "conversation_id" uuid NOT NULL,
                "role" text NOT NULL,
                "content" text NOT NULL,
                "reasoning" text,
                "client_message_id" text,
                "parent_id" uuid,
                "status" text NOT NULL DEFAULT 'complete',
                "finish_reason" text,
                "prompt_tokens" integer,
                "completion_tokens" integer,
                "ttft_ms" integer,
                "total_ms" integer,
                "checkpoint_id" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_18325f38ae6de43878487eff986" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "messages_client_message_id_key" ON "messages" ("conversation_id", "client_message_id")
            WHERE client_message_id IS NOT NULL
        `);
    await queryRunner.query(`
            CREATE INDEX "messages_conversation_order_idx" ON "messages" ("conversation_id", "created_at", "id")
        `);
    await queryRunner.query(`
            CREATE TABLE "outbox" (
                "id" BIGSERIAL NOT NULL,
                "event_id" uuid NOT NULL,
                "topic" text NOT NULL,
                "message_key" text NOT NULL,
                "payload" jsonb NOT NULL,
                "headers" jsonb NOT NULL DEFAULT '{}',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "published_at" TIMESTAMP WITH TIME ZONE,
                "attempts" integer NOT NULL DEFAULT '0',
                "last_error" text,
                CONSTRAINT "UQ_cc0c9e40998e45ecfc5e313429d" UNIQUE ("event_id"),
                CONSTRAINT "PK_340ab539f309f03bdaa14aa7649" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "outbox_unpublished_idx" ON "outbox" ("id")
            WHERE published_at IS NULL
        `);
    await queryRunner.query(`
            ALTER TABLE "characters"
            ADD CONSTRAINT "FK_87284666e889257bb112d64bff7" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE
            SET NULL ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "conversations"
            ADD CONSTRAINT "FK_3a9ae579e61e81cc0e989afeb4a" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "conversations"
            ADD CONSTRAINT "FK_61a7e0353eeadb31a820017c02e" FOREIGN KEY ("character_id") REFERENCES "characters"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "messages"
            ADD CONSTRAINT "FK_3bc55a7c3f9ed54b520bb5cfe23" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "messages"
            ADD CONSTRAINT "FK_932abe146b78bd584b4d1851ce3" FOREIGN KEY ("parent_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "messages" DROP CONSTRAINT "FK_932abe146b78bd584b4d1851ce3"
        `);
    await queryRunner.query(`
            ALTER TABLE "messages" DROP CONSTRAINT "FK_3bc55a7c3f9ed54b520bb5cfe23"
        `);
    await queryRunner.query(`
            ALTER TABLE "conversations" DROP CONSTRAINT "FK_61a7e0353eeadb31a820017c02e"
        `);
    await queryRunner.query(`
            ALTER TABLE "conversations" DROP CONSTRAINT "FK_3a9ae579e61e81cc0e989afeb4a"
        `);
    await queryRunner.query(`
            ALTER TABLE "characters" DROP CONSTRAINT "FK_87284666e889257bb112d64bff7"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."outbox_unpublished_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "outbox"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."messages_conversation_order_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."messages_client_message_id_key"
        `);
    await queryRunner.query(`
            DROP TABLE "messages"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."conversations_user_recent_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "conversations"
        `);
    await queryRunner.query(`
            DROP TABLE "characters"
        `);
    await queryRunner.query(`
            DROP TABLE "users"
        `);
  }
}
