import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCredentials1763700500000 implements MigrationInterface {
  name = 'CreateCredentials1763700500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        scopes text[] NOT NULL,
        prefix text NOT NULL,
        secret_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    // Every request with a key looks it up by the hash of its secret.
    await queryRunner.query(`CREATE UNIQUE INDEX api_keys_secret_hash_key ON api_keys (secret_hash)`);
    // A user's list shows live keys, newest first.
    await queryRunner.query(
      `CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at DESC, id DESC) WHERE revoked_at IS NULL`,
    );

    await queryRunner.query(`
      CREATE TABLE legacy_tokens (
        token_hash text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        used_at timestamptz
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE legacy_tokens`);
    await queryRunner.query(`DROP TABLE api_keys`);
  }
}
