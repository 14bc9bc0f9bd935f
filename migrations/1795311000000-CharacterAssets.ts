import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** character images and CHARX assets */
export class CharacterAssets1795311000000 implements MigrationInterface {
  name = 'CharacterAssets1795311000000';

  public async up(_queryRunner: QueryRunner): Promise<void> {
    // filled in by the work on character images and CHARX assets
  }

  public async down(_queryRunner: QueryRunner): Promise<void> {
    // filled in by the work on character images and CHARX assets
  }
}
