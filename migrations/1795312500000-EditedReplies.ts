import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** A reply the user edited keeps the model's text beside the edited one, which the conversation continues from. */
export class EditedReplies1795312500000 implements MigrationInterface {
  name = 'EditedReplies1795312500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" ADD "original_content" text`);
    await queryRunner.query(`ALTER TABLE "messages" ADD "edited_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "edited_at"`);
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "original_content"`);
  }
}
