import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** the audit log of admin changes to accounts */
export class AccountAudit1795310900000 implements MigrationInterface {
  name = 'AccountAudit1795310900000';

  public async up(_queryRunner: QueryRunner): Promise<void> {
    // filled in by the work on the audit log of admin changes to accounts
  }

  public async down(_queryRunner: QueryRunner): Promise<void> {
    // filled in by the work on the audit log of admin changes to accounts
  }
}
