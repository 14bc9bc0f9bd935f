import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Simulated users (the RL loop's) are marked, so their data never mixes unnoticed with people's. */
export class SimulatedUsers1795312200000 implements MigrationInterface {
  name = 'SimulatedUsers1795312200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "simulated" boolean NOT NULL DEFAULT false`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "simulated"`);
  }
}
