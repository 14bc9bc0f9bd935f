import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class ConversationMemory1795294004639 implements MigrationInterface {
  name = 'ConversationMemory1795294004639';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "conversations"
            ADD "summary" text
        `);
    await queryRunner.query(`
            ALTER TABLE "conversations"
            ADD "summary_through" TIMESTAMP WITH TIME ZONE
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "conversations" DROP COLUMN "summary_through"
        `);
    await queryRunner.query(`
            ALTER TABLE "conversations" DROP COLUMN "summary"
        `);
  }
}
