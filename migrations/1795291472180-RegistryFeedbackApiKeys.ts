import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class RegistryFeedbackApiKeys1795291472180 implements MigrationInterface {
  name = 'RegistryFeedbackApiKeys1795291472180';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "api_keys" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "name" text NOT NULL,
                "key_hash" text NOT NULL,
                "prefix" text NOT NULL,
                "roles" text array NOT NULL,
                "created_by" uuid,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "revoked_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "UQ_57384430aa1959f4578046c9b81" UNIQUE ("key_hash"),
                CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "checkpoints" (
                "id" text NOT NULL,
                "model_name" text NOT NULL,
                "endpoints" jsonb NOT NULL,
                "decoding" jsonb NOT NULL DEFAULT '{}',
                "context_tokens" integer NOT NULL DEFAULT '4096',
                "status" text NOT NULL DEFAULT 'candidate',
                "is_default" boolean NOT NULL DEFAULT false,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_dfcc46a91d96ecba8a8dcd8b11c" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "checkpoints_single_default_idx" ON "checkpoints" ("is_default")
            WHERE is_default
        `);
    await queryRunner.query(`
            CREATE TABLE "feedback" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "message_id" uuid NOT NULL,
                "user_id" uuid NOT NULL,
                "rating" smallint,
                "comment" text,
                "tags" text array NOT NULL DEFAULT '{}',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_8389f9e087a57689cd5be8b2b13" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "feedback_message_user_key" ON "feedback" ("message_id", "user_id")
        `);
    await queryRunner.query(`
            ALTER TABLE "messages"
            ADD "selected" boolean NOT NULL DEFAULT true
        `);
    await queryRunner.query(`
            ALTER TABLE "messages"
            ADD "safety_categories" text array NOT NULL DEFAULT '{}'
        `);
    await queryRunner.query(`
            ALTER TABLE "feedback"
            ADD CONSTRAINT "FK_f05013bed3b4e032e80c6e8d8e4" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "feedback"
            ADD CONSTRAINT "FK_121c67d42dd543cca0809f59901" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "feedback" DROP CONSTRAINT "FK_121c67d42dd543cca0809f59901"
        `);
    await queryRunner.query(`
            ALTER TABLE "feedback" DROP CONSTRAINT "FK_f05013bed3b4e032e80c6e8d8e4"
        `);
    await queryRunner.query(`
            ALTER TABLE "messages" DROP COLUMN "safety_categories"
        `);
    await queryRunner.query(`
            ALTER TABLE "messages" DROP COLUMN "selected"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."feedback_message_user_key"
        `);
    await queryRunner.query(`
            DROP TABLE "feedback"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."checkpoints_single_default_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "checkpoints"
        `);
    await queryRunner.query(`
            DROP TABLE "api_keys"
        `);
  }
}
