import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Conversations by last activity: the retention sweep deletes the oldest first, in cheap batches. */
export class ConversationRetention1795311400000 implements MigrationInterface {
  name = 'ConversationRetention1795311400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "conversations_updated_idx" ON "conversations" ("updated_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."conversations_updated_idx"`);
  }
}
