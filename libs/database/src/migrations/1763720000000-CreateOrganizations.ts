import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organizations and their members. Slugs are unique case-insensitively (the index is on
 * lower(slug)). `organization_members (user_id, organization_id)` serves "which organizations
 * does the caller belong to", the first step of every visibility check; the primary key serves
 * the member list of one organization and "is this user a member".
 */
export class CreateOrganizations1763720000000 implements MigrationInterface {
  name = 'CreateOrganizations1763720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE organizations (
        id text PRIMARY KEY,
        name text NOT NULL,
        slug text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX organizations_slug_key ON organizations (lower(slug))`);
    await queryRunner.query(`CREATE INDEX organizations_created_at_idx ON organizations (created_at, id)`);
    await queryRunner.query(`
      CREATE TABLE organization_members (
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, user_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX organization_members_user_idx ON organization_members (user_id, organization_id) INCLUDE (role)`,
    );
    // An organization is deleted only without resources; the key makes that hold under races too.
    await queryRunner.query(
      `ALTER TABLE resources ADD CONSTRAINT resources_organization_fkey
       FOREIGN KEY (organization_id) REFERENCES organizations (id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE resources DROP CONSTRAINT resources_organization_fkey`);
    await queryRunner.query(`DROP TABLE organization_members`);
    await queryRunner.query(`DROP TABLE organizations`);
  }
}
