import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** dataset exports asked for over the API, and which users each holds (for erasure) */
export class DatasetExports1795311300000 implements MigrationInterface {
  name = 'DatasetExports1795311300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "dataset_exports" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "kind" text NOT NULL,
                "format" text NOT NULL,
                "filters" jsonb NOT NULL,
                "status" text NOT NULL DEFAULT 'queued',
                "read" integer NOT NULL DEFAULT '0',
                "total" integer,
                "rows" integer,
                "manifest" jsonb,
                "error" text,
                "requested_by" uuid,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "started_at" TIMESTAMP WITH TIME ZONE,
                "heartbeat_at" TIMESTAMP WITH TIME ZONE,
                "finished_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_c216a6a4ef04dbd34b95de89d5c" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "dataset_exports_queued" ON "dataset_exports" ("created_at")
            WHERE status = 'queued'
        `);
    await queryRunner.query(`
            CREATE TABLE "dataset_export_users" (
                "export_id" uuid NOT NULL,
                "user_id" uuid NOT NULL,
                CONSTRAINT "PK_e2368be14c0778b4e3dd944da30" PRIMARY KEY ("export_id", "user_id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "dataset_export_users_user" ON "dataset_export_users" ("user_id")
        `);
    await queryRunner.query(`
            ALTER TABLE "dataset_exports"
            ADD CONSTRAINT "FK_680583dd49de43129a3bb4104eb" FOREIGN KEY ("requested_by") REFERENCES "users"("id") ON DELETE
            SET NULL ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "dataset_export_users"
            ADD CONSTRAINT "FK_7f2bbd4bacab0ffea4c60acf983" FOREIGN KEY ("export_id") REFERENCES "dataset_exports"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "dataset_export_users"
            ADD CONSTRAINT "FK_f71f8010487b8ad84b7fae8acf6" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "dataset_export_users" DROP CONSTRAINT "FK_f71f8010487b8ad84b7fae8acf6"
        `);
    await queryRunner.query(`
            ALTER TABLE "dataset_export_users" DROP CONSTRAINT "FK_7f2bbd4bacab0ffea4c60acf983"
        `);
    await queryRunner.query(`
            ALTER TABLE "dataset_exports" DROP CONSTRAINT "FK_680583dd49de43129a3bb4104eb"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."dataset_export_users_user"
        `);
    await queryRunner.query(`
            DROP TABLE "dataset_export_users"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."dataset_exports_queued"
        `);
    await queryRunner.query(`
            DROP TABLE "dataset_exports"
        `);
  }
}
