import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * API keys scoped to roles and services, with expiry, rotation and last use. Existing keys keep what they could do
 * where keys may still do it: keys without roles (which only the labeller and the eval-runner accepted) become
 * experimenter keys for those two; `admin` (no longer allowed on a key) becomes experimenter and analyst; every key
 * gets the services it could reach and expires in 90 days, so operators rotate them into the new policy.
 */
export class ScopedApiKeys1795310800000 implements MigrationInterface {
  name = 'ScopedApiKeys1795310800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "api_keys"
                ADD "services" text array,
                ADD "expires_at" TIMESTAMP WITH TIME ZONE,
                ADD "rotated_at" TIMESTAMP WITH TIME ZONE,
                ADD "previous_key_hash" text,
                ADD "previous_key_expires_at" TIMESTAMP WITH TIME ZONE,
                ADD "last_used_at" TIMESTAMP WITH TIME ZONE
        `);
    await queryRunner.query(`
            UPDATE "api_keys" SET
                "services" = CASE WHEN cardinality("roles") = 0
                    THEN '{reward-labeller,eval-runner}'::text[]
                    ELSE '{chat-gateway,reward-labeller,eval-runner}'::text[] END,
                "roles" = CASE
                    WHEN cardinality("roles") = 0 THEN '{experimenter}'::text[]
                    WHEN 'admin' = ANY ("roles") THEN ARRAY(
                        SELECT DISTINCT role
                        FROM unnest(array_remove("roles", 'admin') || '{experimenter,analyst}'::text[]) AS role
                        ORDER BY role)
                    ELSE "roles" END,
                "expires_at" = now() + interval '90 days'
        `);
    await queryRunner.query(`
            ALTER TABLE "api_keys"
                ALTER COLUMN "services" SET NOT NULL,
                ALTER COLUMN "expires_at" SET NOT NULL
        `);
    await queryRunner.query(`
            CREATE INDEX "api_keys_previous_key_hash_idx" ON "api_keys" ("previous_key_hash")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."api_keys_previous_key_hash_idx"
        `);
    await queryRunner.query(`
            ALTER TABLE "api_keys"
                DROP COLUMN "last_used_at",
                DROP COLUMN "previous_key_expires_at",
                DROP COLUMN "previous_key_hash",
                DROP COLUMN "rotated_at",
                DROP COLUMN "expires_at",
                DROP COLUMN "services"
        `);
  }
}
