import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Resources and the indexes their listings walk. Every listing index is partial on
 * `deleted_at IS NULL` (soft-deleted rows are never listed) and ends with `id`, the final
 * tie-breaker of every sort, so that keyset cursors and OFFSET pages read the index in order
 * and stop after one page. Descending sorts scan the same indexes backwards.
 */
export class CreateResources1763710000000 implements MigrationInterface {
  name = 'CreateResources1763710000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE resources (
        id text PRIMARY KEY,
        owner_id text NOT NULL REFERENCES users (id),
        organization_id text,
        name text NOT NULL,
        description text,
        type text NOT NULL DEFAULT 'standard' CHECK (type IN ('standard', 'premium')),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
        metadata jsonb NOT NULL DEFAULT '{}',
        tags jsonb NOT NULL DEFAULT '[]',
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        deleted_at timestamptz(3)
      )`);
    // GET /resources of one owner: one index per sortable column (the default -created_at,
    // then updated_at, name, type, status), serving both sort directions.
    for (const column of ['created_at', 'updated_at', 'name', 'type', 'status']) {
      await queryRunner.query(
        `CREATE INDEX resources_owner_${column}_idx ON resources (owner_id, ${column}, id) WHERE deleted_at IS NULL`,
      );
    }
    // The total of offset pages, with or without filter[status] / filter[type]: an index-only
    // scan of a small index (its few distinct keys are deduplicated into posting lists).
    await queryRunner.query(
      `CREATE INDEX resources_owner_count_idx ON resources (owner_id, status, type) WHERE deleted_at IS NULL`,
    );
    // GET /resources by a platform admin (every owner) in the default order.
    await queryRunner.query(`CREATE INDEX resources_created_at_idx ON resources (created_at, id) WHERE deleted_at IS NULL`);
    // filter[organization_id] and the organization's own listings; rows without one stay out.
    await queryRunner.query(
      `CREATE INDEX resources_organization_created_at_idx ON resources (organization_id, created_at, id)
       WHERE deleted_at IS NULL AND organization_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE resources`);
  }
}
