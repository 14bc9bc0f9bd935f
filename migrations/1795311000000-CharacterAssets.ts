import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** character images and CHARX assets */
export class CharacterAssets1795311000000 implements MigrationInterface {
  name = 'CharacterAssets1795311000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "character_assets" (
                "id" uuid NOT NULL DEFAULT gen_random_uuid(),
                "character_id" uuid NOT NULL,
                "path" text,
                "is_avatar" boolean NOT NULL,
                "content_type" text NOT NULL,
                "sha256" text NOT NULL,
                "size" integer NOT NULL,
                "data" bytea NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_8565718efe8649dc06ab5ddfbed" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "character_assets_avatar" ON "character_assets" ("character_id")
            WHERE is_avatar
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "character_assets_path" ON "character_assets" ("character_id", "path")
        `);
    await queryRunner.query(`
            ALTER TABLE "character_assets"
            ADD CONSTRAINT "FK_4a1d937507c79aea11acad4913f" FOREIGN KEY ("character_id") REFERENCES "characters"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "character_assets" DROP CONSTRAINT "FK_4a1d937507c79aea11acad4913f"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."character_assets_path"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."character_assets_avatar"
        `);
    await queryRunner.query(`
            DROP TABLE "character_assets"
        `);
  }
}
