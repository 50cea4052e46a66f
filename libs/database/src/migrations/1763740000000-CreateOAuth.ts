import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOAuth1763740000000 implements MigrationInterface {
  name = 'CreateOAuth1763740000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE oauth_clients (
        id text PRIMARY KEY,
        owner_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        redirect_uris text[] NOT NULL,
        scopes text[] NOT NULL,
        confidential boolean NOT NULL,
        secret_hash text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT oauth_clients_secret_check CHECK (confidential = (secret_hash IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX oauth_clients_owner_idx ON oauth_clients (owner_id, created_at DESC, id DESC)`);

    // A grant is one user's consent to one client (or a client's own credentials): the
    // authorization code and every token issued from it share it, so reuse revokes them together.
    await queryRunner.query(`
      CREATE TABLE oauth_authorization_codes (
        code_hash text PRIMARY KEY,
        grant_id text NOT NULL,
        client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        redirect_uri text NOT NULL,
        scopes text[] NOT NULL,
        code_challenge text,
        code_challenge_method text,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE oauth_tokens (
        id text PRIMARY KEY,
        token_hash text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
        grant_id text NOT NULL,
        client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        scopes text[] NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Every request with an OAuth token looks it up by the hash of its secret.
    await queryRunner.query(`CREATE UNIQUE INDEX oauth_tokens_hash_key ON oauth_tokens (token_hash)`);
    await queryRunner.query(`CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (grant_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE oauth_tokens`);
    await queryRunner.query(`DROP TABLE oauth_authorization_codes`);
    await queryRunner.query(`DROP TABLE oauth_clients`);
  }
}
