import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A user message stores which user turn of its conversation it is, so that a turn reads the number from the
 * previous user message instead of counting every user message of the conversation (a count that grew with the
 * conversation: 19 ms of a 50,000-message conversation's 20 ms statement). Existing messages are numbered in order.
 */
export class NumberedUserTurns1795311800000 implements MigrationInterface {
  name = 'NumberedUserTurns1795311800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" ADD "user_turn" integer`);
    await queryRunner.query(`
            UPDATE "messages" m SET "user_turn" = n."turn"
              FROM (SELECT "id", row_number() OVER (PARTITION BY "conversation_id" ORDER BY "created_at", "id") AS "turn"
                      FROM "messages" WHERE "role" = 'user') n
             WHERE m."id" = n."id"
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "user_turn"`);
  }
}
