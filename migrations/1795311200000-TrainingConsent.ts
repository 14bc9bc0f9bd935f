import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** users.training_consent: null until the user chooses (the configured default applies). */
export class TrainingConsent1795311200000 implements MigrationInterface {
  name = 'TrainingConsent1795311200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "training_consent" boolean`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "training_consent"`);
  }
}
