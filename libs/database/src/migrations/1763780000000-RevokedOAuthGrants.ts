import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A revoked grant is recorded, not only its tokens marked: a token issued after the revocation
 * (the winner of two racing exchanges of one code) is then refused too, as its grant is.
 */
export class RevokedOAuthGrants1763780000000 implements MigrationInterface {
  name = 'RevokedOAuthGrants1763780000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE oauth_revoked_grants (
        grant_id text PRIMARY KEY,
        revoked_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE oauth_revoked_grants`);
  }
}
