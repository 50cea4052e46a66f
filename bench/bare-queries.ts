/**
 * The SQL of the measured routes as the service runs it, through a bare `pg` pool with no
 * framework, authentication or validation: shared by the baseline server and the Nest floor so
 * that both answer with exactly the same statements. The owner is fixed; cursors are unsigned
 * base64 JSON positions.
 */
import type { Pool } from 'pg';

const iso = (column: string): string =>
  `to_char(r.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`;
const RECORD = `r.id, r.name, r.description, r.type, r.status, r.metadata, r.tags, r.owner_id, r.organization_id,
  ${iso('created_at')}, ${iso('updated_at')}, ${iso('deleted_at')}, r.version`;
const LIST = `r.id, ${iso('created_at')}, r.name, r.type, r.status, ${iso('updated_at')}`;
const ORDER = 'r.created_at DESC, r.id DESC';
const LIVE = 'r.deleted_at IS NULL AND r.owner_id = $1';

/** The owner's live resource with this id, or undefined. */
export async function findResource(pool: Pool, owner: string, id: string): Promise<unknown> {
  const { rows } = await pool.query(
    `SELECT ${RECORD} FROM resources r WHERE r.id = $1 AND r.deleted_at IS NULL AND r.owner_id = $2`,
    [id, owner],
  );
  return rows[0];
}

/** One cursor page of the owner's live resources, newest first, as the listing answers it. */
export async function cursorPage(pool: Pool, owner: string, limit: number, cursor: string | null): Promise<unknown> {
  const params: unknown[] = [owner, limit + 1];
  let where = LIVE;
  let behind = '';
  if (cursor) {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [string, string];
    params.push(createdAt, id);
    where += ` AND (r.created_at, r.id) < ($3::timestamptz, $4::text)`;
    behind = `, (SELECT 1 FROM resources r WHERE ${LIVE} AND (r.created_at, r.id) >= ($3::timestamptz, $4::text)
               ORDER BY r.created_at ASC, r.id ASC LIMIT 1) IS NOT NULL AS has_behind`;
  }
  const { rows } = await pool.query<{ id: string; created_at: string }>(
    `SELECT ${LIST}${behind} FROM resources r WHERE ${where} ORDER BY ${ORDER} LIMIT $2`,
    params,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const next = rows.length > limit && last ? Buffer.from(JSON.stringify([last.created_at, last.id])).toString('base64url') : null;
  return { data: page, meta: { cursor: { next, prev: null, has_more: next !== null }, limit } };
}

/** One offset page of the owner's live resources and their total, in one statement. */
export async function offsetPage(pool: Pool, owner: string, page: number, perPage: number): Promise<unknown> {
  const { rows } = await pool.query<{ total: number }>(
    `SELECT t.total, ${LIST}
     FROM (SELECT count(*)::int AS total FROM resources r WHERE ${LIVE}) t
     LEFT JOIN (
       resources r
       JOIN (SELECT r.id FROM resources r WHERE ${LIVE} ORDER BY ${ORDER} LIMIT $2 OFFSET $3) page ON page.id = r.id
     ) ON TRUE
     ORDER BY ${ORDER}`,
    [owner, perPage, (page - 1) * perPage],
  );
  const total = rows[0]?.total ?? 0;
  return { data: rows, meta: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) } };
}
