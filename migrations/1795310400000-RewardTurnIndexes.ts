import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class RewardTurnIndexes1795310400000 implements MigrationInterface {
  name = 'RewardTurnIndexes1795310400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE INDEX "reward_turns_waiting" ON "reward_turns" ("replied_at")
            WHERE NOT (signals ? 'nextUserMessage')
        `);
    await queryRunner.query(`
            CREATE INDEX "reward_turns_user_message" ON "reward_turns" ("user_message_id")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."reward_turns_user_message"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."reward_turns_waiting"
        `);
  }
}
