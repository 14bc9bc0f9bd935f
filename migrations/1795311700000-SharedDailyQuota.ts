import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The daily message quota joins the stream slots and the rate-limit bucket in `turn_gates`, so every gateway
 * process counts against one number: the UTC day counted and the turns taken on it. Existing rows start from the
 * messages their user stored today.
 */
export class SharedDailyQuota1795311700000 implements MigrationInterface {
  name = 'SharedDailyQuota1795311700000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "turn_gates" ADD "quota_day" date`);
    await queryRunner.query(`ALTER TABLE "turn_gates" ADD "quota_used" integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`
            UPDATE "turn_gates" g SET "quota_day" = (now() AT TIME ZONE 'UTC')::date, "quota_used" = (
              SELECT count(*) FROM "messages" m JOIN "conversations" c ON c."id" = m."conversation_id"
               WHERE c."user_id" = g."user_id" AND m."role" = 'user'
                 AND m."created_at" >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "turn_gates" DROP COLUMN "quota_used"`);
    await queryRunner.query(`ALTER TABLE "turn_gates" DROP COLUMN "quota_day"`);
  }
}
