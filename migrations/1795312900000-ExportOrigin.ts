import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Exports made by the CLI are recorded beside the API's, so that erasing a user reaches their files too. */
export class ExportOrigin1795312900000 implements MigrationInterface {
  name = 'ExportOrigin1795312900000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "dataset_exports" ADD "origin" text NOT NULL DEFAULT 'api'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "dataset_exports" DROP COLUMN "origin"`);
  }
}
