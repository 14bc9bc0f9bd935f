import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class RlJobs1795311500000 implements MigrationInterface {
  name = 'RlJobs1795311500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "rl_jobs" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "lane" text NOT NULL DEFAULT 'default',
                "status" text NOT NULL DEFAULT 'queued',
                "trigger" text NOT NULL,
                "template" text NOT NULL,
                "runner" text NOT NULL,
                "hyperparameters" jsonb NOT NULL DEFAULT '{}',
                "requested_by" text,
                "external_id" text,
                "dataset" jsonb,
                "metrics" jsonb,
                "output" jsonb,
                "checkpoint_id" text,
                "gate" jsonb,
                "experiment_id" uuid,
                "logs_tail" text,
                "reason" text,
                "cancel_requested" boolean NOT NULL DEFAULT false,
                "lease_owner" text,
                "lease_expires_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "finished_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_542bbf12e89d4ab4907dd53c8c3" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "rl_jobs_created" ON "rl_jobs" ("created_at")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "rl_jobs_one_active_per_lane" ON "rl_jobs" ("lane")
            WHERE status IN (
                    'queued',
                    'snapshotting',
                    'training',
                    'loading',
                    'gating',
                    'experimenting'
                )
        `);
    await queryRunner.query(`
            CREATE TABLE "rl_trigger_decisions" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "trigger" text NOT NULL,
                "decision" text NOT NULL,
                "reason" text NOT NULL,
                "details" jsonb NOT NULL DEFAULT '{}',
                "job_id" uuid,
                CONSTRAINT "PK_b2ee2fa36a9ad530739703430a0" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "rl_trigger_decisions_at" ON "rl_trigger_decisions" ("at")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."rl_trigger_decisions_at"
        `);
    await queryRunner.query(`
            DROP TABLE "rl_trigger_decisions"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."rl_jobs_one_active_per_lane"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."rl_jobs_created"
        `);
    await queryRunner.query(`
            DROP TABLE "rl_jobs"
        `);
  }
}
