import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** API keys scoped to roles and services, with expiry, rotation and last use */
export class ScopedApiKeys1795310800000 implements MigrationInterface {
  name = 'ScopedApiKeys1795310800000';

  public async up(_queryRunner: QueryRunner): Promise<void> {
    // filled in by the work on API keys scoped to roles and services, with expiry, rotation and last use
  }

  public async down(_queryRunner: QueryRunner): Promise<void> {
    // filled in by the work on API keys scoped to roles and services, with expiry, rotation and last use
  }
}
