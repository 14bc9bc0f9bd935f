import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** A user's turns by time: the previous turn a return credits, and an experiment's pre-period. */
export class RewardTurnsByUser1795312400000 implements MigrationInterface {
  name = 'RewardTurnsByUser1795312400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "reward_turns_user_replied" ON "reward_turns" ("user_id", "replied_at")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."reward_turns_user_replied"`);
  }
}
