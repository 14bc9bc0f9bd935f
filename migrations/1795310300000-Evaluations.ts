import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class Evaluations1795310300000 implements MigrationInterface {
  name = 'Evaluations1795310300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "evaluations" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "checkpoint_id" text NOT NULL,
                "suite" text NOT NULL,
                "profile_ids" text array NOT NULL,
                "policy" jsonb NOT NULL,
                "simulator" jsonb NOT NULL,
                "status" text NOT NULL DEFAULT 'running',
                "metrics" jsonb,
                "error" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "finished_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_f683b433eba0e6dae7e19b29e29" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "evaluations_checkpoint" ON "evaluations" ("checkpoint_id", "created_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "evaluation_episodes" (
                "evaluation_id" uuid NOT NULL,
                "profile_id" text NOT NULL,
                "episode" jsonb NOT NULL,
                CONSTRAINT "PK_dfeb84aa3f473b9789b795f9d96" PRIMARY KEY ("evaluation_id", "profile_id")
            )
        `);
    await queryRunner.query(`
            ALTER TABLE "evaluation_episodes"
            ADD CONSTRAINT "FK_b3a0050c95e7c8243aa2f457979" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "evaluation_episodes" DROP CONSTRAINT "FK_b3a0050c95e7c8243aa2f457979"
        `);
    await queryRunner.query(`
            DROP TABLE "evaluation_episodes"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."evaluations_checkpoint"
        `);
    await queryRunner.query(`
            DROP TABLE "evaluations"
        `);
  }
}
