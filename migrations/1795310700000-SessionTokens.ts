import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** sessions that follow the account (refresh tokens, revocation) */
export class SessionTokens1795310700000 implements MigrationInterface {
  name = 'SessionTokens1795310700000';

  public async up(_queryRunner: QueryRunner): Promise<void> {
    // filled in by the work on sessions that follow the account (refresh tokens, revocation)
  }

  public async down(_queryRunner: QueryRunner): Promise<void> {
    // filled in by the work on sessions that follow the account (refresh tokens, revocation)
  }
}
