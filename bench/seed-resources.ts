import type { Client } from 'pg';

/** `count` resources of one owner, one millisecond apart, with valid `res_` ids; returns 1,000 of their ids at random. */
export async function seedResources(db: Client, ownerId: string, count: number): Promise<string[]> {
  await db.query(
    `INSERT INTO resources (id, owner_id, name, description, type, status, metadata, tags, created_at, updated_at)
     SELECT 'res_' || upper(lpad(to_hex(n), 26, '0')), $1, 'Resource ' || n, 'Seeded for the benchmark',
            CASE WHEN n % 3 = 0 THEN 'premium' ELSE 'standard' END, 'active',
            jsonb_build_object('n', n), '["bench"]'::jsonb,
            now() - ($2 - n) * interval '1 millisecond', now() - ($2 - n) * interval '1 millisecond'
     FROM generate_series(1, $2) AS n`,
    [ownerId, count],
  );
  // As autovacuum would have by now: index-only scans need the visibility map.
  await db.query('VACUUM ANALYZE resources');
  // The seed's pages are written out now, not by a checkpoint in the middle of a measurement.
  await db.query('CHECKPOINT');
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM resources WHERE owner_id = $1 ORDER BY random() LIMIT 1000`, [ownerId]);
  return rows.map((row) => row.id);
}
