import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAccounts1763700000000 implements MigrationInterface {
  name = 'CreateAccounts1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        email text NOT NULL,
        username text NOT NULL,
        password_hash text NOT NULL,
        role text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
        plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro', 'enterprise')),
        first_name text,
        last_name text,
        avatar_url text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Login and the uniqueness rule look emails up case-insensitively.
    await queryRunner.query(`CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email))`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_username_key ON users (username)`);

    await queryRunner.query(`
      CREATE TABLE refresh_tokens (
        id text PRIMARY KEY,
        family_id text NOT NULL,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL,
        rotated_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Revoking a family updates every token of it.
    await queryRunner.query(`CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id)`);

    await queryRunner.query(`
      CREATE TABLE events (
        id text PRIMARY KEY,
        type text NOT NULL,
        data jsonb NOT NULL,
        previous_data jsonb,
        owner_id text,
        organization_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    // The outbox relay scans unpublished events in id (time) order.
    await queryRunner.query(`CREATE INDEX events_unpublished_idx ON events (id) WHERE published_at IS NULL`);
    // Event listings filter by owner or organization and page by id.
    await queryRunner.query(`CREATE INDEX events_owner_idx ON events (owner_id, id)`);
    await queryRunner.query(`CREATE INDEX events_organization_idx ON events (organization_id, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE events`);
    await queryRunner.query(`DROP TABLE refresh_tokens`);
    await queryRunner.query(`DROP TABLE users`);
  }
}
