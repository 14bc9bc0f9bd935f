import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class SimulatorSessions1795310500000 implements MigrationInterface {
  name = 'SimulatorSessions1795310500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "simulator_sessions" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "profile_id" text NOT NULL,
                "session" jsonb NOT NULL,
                "end_reason" text,
                "version" integer NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_aca0175390b7a6c0db3dc7567ae" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "simulator_sessions_updated" ON "simulator_sessions" ("updated_at")
        `);
    await queryRunner.query(`
            ALTER TABLE "evaluations"
            ADD "mode" text NOT NULL DEFAULT 'sage'
        `);
    await queryRunner.query(`
            ALTER TABLE "evaluations"
            ADD "judge" jsonb
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "evaluations" DROP COLUMN "judge"
        `);
    await queryRunner.query(`
            ALTER TABLE "evaluations" DROP COLUMN "mode"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."simulator_sessions_updated"
        `);
    await queryRunner.query(`
            DROP TABLE "simulator_sessions"
        `);
  }
}
