import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Thumbs and stars become separate answers (feedback.thumb, feedback.stars; signals `thumbs`, `stars`), and feedback
 * that arrives before its turn is held (pending_signals). Old ratings are moved as v1 documented them: -1 and 1
 * were thumbs, 2-5 stars.
 */
export class ThumbsAndStars1795311100000 implements MigrationInterface {
  name = 'ThumbsAndStars1795311100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "feedback" ADD "thumb" smallint`);
    await queryRunner.query(`ALTER TABLE "feedback" ADD "stars" smallint`);
    await queryRunner.query(`
            UPDATE "feedback" SET
              "thumb" = CASE WHEN "rating" IN (-1, 1) THEN "rating" END,
              "stars" = CASE WHEN "rating" BETWEEN 2 AND 5 THEN "rating" END
        `);
    await queryRunner.query(`ALTER TABLE "feedback" DROP COLUMN "rating"`);
    await queryRunner.query(`
            UPDATE "reward_turns" SET "signals" = ("signals" - 'rating') || CASE
                WHEN "signals"->'rating' IN ('-1'::jsonb, '1'::jsonb) THEN jsonb_build_object('thumbs', "signals"->'rating')
                WHEN jsonb_typeof("signals"->'rating') = 'number' AND ("signals"->>'rating')::numeric BETWEEN 2 AND 5
                  THEN jsonb_build_object('stars', "signals"->'rating')
                ELSE '{}'::jsonb
              END
            WHERE "signals" ? 'rating'
        `);
    await queryRunner.query(`
            CREATE TABLE "pending_signals" (
                "turn_id" uuid NOT NULL,
                "signals" jsonb NOT NULL,
                "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_e4205a483aeacf01c8509cb86eb" PRIMARY KEY ("turn_id")
            )
        `);
    await queryRunner.query(`CREATE INDEX "pending_signals_received" ON "pending_signals" ("received_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."pending_signals_received"`);
    await queryRunner.query(`DROP TABLE "pending_signals"`);
    await queryRunner.query(`
            UPDATE "reward_turns" SET "signals" = ("signals" - 'thumbs' - 'stars')
              || jsonb_build_object('rating', COALESCE("signals"->'thumbs', "signals"->'stars'))
            WHERE "signals" ?| array['thumbs', 'stars']
        `);
    await queryRunner.query(`ALTER TABLE "feedback" ADD "rating" smallint`);
    await queryRunner.query(`UPDATE "feedback" SET "rating" = COALESCE("thumb", "stars")`);
    await queryRunner.query(`ALTER TABLE "feedback" DROP COLUMN "stars"`);
    await queryRunner.query(`ALTER TABLE "feedback" DROP COLUMN "thumb"`);
  }
}
