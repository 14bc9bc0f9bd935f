import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** An evaluation may cap its conversations' policy turns (null: the mode's own rule), kept so a resumed run keeps it. */
export class EvaluationMaxTurns1795312100000 implements MigrationInterface {
  name = 'EvaluationMaxTurns1795312100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "evaluations" ADD "max_turns" integer`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "evaluations" DROP COLUMN "max_turns"`);
  }
}
