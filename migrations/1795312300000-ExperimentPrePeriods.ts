import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Each exposed user's metrics before their exposure, CUPED's covariate for the experiment's results. */
export class ExperimentPrePeriods1795312300000 implements MigrationInterface {
  name = 'ExperimentPrePeriods1795312300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "experiment_user_pre_periods" (
                "experiment_id" uuid NOT NULL,
                "user_id" uuid NOT NULL,
                "values" jsonb NOT NULL,
                "turns" integer NOT NULL,
                CONSTRAINT "PK_experiment_user_pre_periods" PRIMARY KEY ("experiment_id", "user_id")
            )
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "experiment_user_pre_periods"`);
  }
}
