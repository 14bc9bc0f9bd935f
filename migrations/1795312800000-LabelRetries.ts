import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** How often a label's judge was asked, and when last: failed labels are retried a few times, backing off. */
export class LabelRetries1795312800000 implements MigrationInterface {
  name = 'LabelRetries1795312800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "reward_labels" ADD "attempts" integer NOT NULL DEFAULT 1`);
    await queryRunner.query(
      `ALTER TABLE "reward_labels" ADD "attempted_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()`,
    );
    await queryRunner.query(
      `CREATE INDEX "reward_labels_failed_idx" ON "reward_labels" ("attempted_at") WHERE status = 'failed'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."reward_labels_failed_idx"`);
    await queryRunner.query(`ALTER TABLE "reward_labels" DROP COLUMN "attempted_at"`);
    await queryRunner.query(`ALTER TABLE "reward_labels" DROP COLUMN "attempts"`);
  }
}
