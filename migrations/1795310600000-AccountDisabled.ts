import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class AccountDisabled1795310600000 implements MigrationInterface {
  name = 'AccountDisabled1795310600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "disabled_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "disabled_at"`);
  }
}
