import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class DeepPersonaAndDirector1795310000000 implements MigrationInterface {
  name = 'DeepPersonaAndDirector1795310000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "user_profiles"
            ADD "user_turns_since_deep" integer NOT NULL DEFAULT '0'
        `);
    await queryRunner.query(`
            ALTER TABLE "conversations"
            ADD "director" jsonb
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "conversations" DROP COLUMN "director"
        `);
    await queryRunner.query(`
            ALTER TABLE "user_profiles" DROP COLUMN "user_turns_since_deep"
        `);
  }
}
