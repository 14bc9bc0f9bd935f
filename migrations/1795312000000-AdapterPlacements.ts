import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Adapters as desired state: a checkpoint names the LoRA folder its endpoints load (`adapter_path`), and the
 * reconciler records where each adapter is loaded (`adapter_placements`), so a gateway routes only to served ones.
 */
export class AdapterPlacements1795312000000 implements MigrationInterface {
  name = 'AdapterPlacements1795312000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "checkpoints" ADD "adapter_path" text`);
    await queryRunner.query(`
            CREATE TABLE "adapter_placements" (
                "checkpoint_id" text NOT NULL,
                "base_url" text NOT NULL,
                "state" text NOT NULL,
                "detail" text,
                "observed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_adapter_placements" PRIMARY KEY ("checkpoint_id", "base_url"),
                CONSTRAINT "FK_adapter_placements_checkpoint_id" FOREIGN KEY ("checkpoint_id") REFERENCES "checkpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION
            )
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "adapter_placements"`);
    await queryRunner.query(`ALTER TABLE "checkpoints" DROP COLUMN "adapter_path"`);
  }
}
