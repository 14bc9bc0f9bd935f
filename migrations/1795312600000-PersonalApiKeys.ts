import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Personal API keys (a user's own, for OpenAI-compatible clients) beside service keys, and where a conversation
 * came from: the client that started it through the OpenAI-compatible endpoint, its system prompt, and the key
 * its resent history is found by.
 */
export class PersonalApiKeys1795312600000 implements MigrationInterface {
  name = 'PersonalApiKeys1795312600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "kind" text NOT NULL DEFAULT 'service'`);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "persona_guidance" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `CREATE INDEX "api_keys_personal_owner_idx" ON "api_keys" ("created_by") WHERE kind = 'personal'`,
    );
    await queryRunner.query(`ALTER TABLE "conversations" ADD "client_name" text`);
    await queryRunner.query(`ALTER TABLE "conversations" ADD "client_system_prompt" text`);
    await queryRunner.query(`ALTER TABLE "conversations" ADD "client_thread_key" text`);
    await queryRunner.query(
      `ALTER TABLE "conversations" ADD "client_persona_guidance" boolean NOT NULL DEFAULT false`,
    );
    await queryRunner.query(`ALTER TABLE "conversations" ADD "client_speakers" jsonb`);
    await queryRunner.query(
      `CREATE INDEX "conversations_client_thread_idx" ON "conversations" ("user_id", "client_thread_key") WHERE client_thread_key IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."conversations_client_thread_idx"`);
    await queryRunner.query(`ALTER TABLE "conversations" DROP COLUMN "client_speakers"`);
    await queryRunner.query(`ALTER TABLE "conversations" DROP COLUMN "client_persona_guidance"`);
    await queryRunner.query(`ALTER TABLE "conversations" DROP COLUMN "client_thread_key"`);
    await queryRunner.query(`ALTER TABLE "conversations" DROP COLUMN "client_system_prompt"`);
    await queryRunner.query(`ALTER TABLE "conversations" DROP COLUMN "client_name"`);
    await queryRunner.query(`DROP INDEX "public"."api_keys_personal_owner_idx"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "persona_guidance"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "kind"`);
  }
}
