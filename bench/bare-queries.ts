/**
 * The reads of the measured routes through a bare `pg` pool with no framework, authentication or
 * validation: shared by the baseline server and the Nest floor. By id and by cursor they send
 * the very statements the service sends (built by the same repository functions), for the same
 * caller: a user who owns the seeded resources, whose memberships a list reads first, as the
 * service does. The owner is fixed; cursors are unsigned base64 JSON positions.
 */
import type { Pool } from 'pg';
import { ALL_SCOPES, AuthContext } from '@app/common';
import {
  keysetPageStatement,
  Membership,
  membershipsStatement,
  ResourceListRow,
  visibleResourceStatement,
} from '@app/database';
import { toResourceListQuery } from '../apps/api/src/resources/resource-list-query';

const iso = (column: string): string =>
  `to_char(r.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`;
const LIST = `r.id, ${iso('created_at')}, r.name, r.type, r.status, ${iso('updated_at')}`;
const ORDER = 'r.created_at DESC, r.id DESC';
const LIVE = 'r.deleted_at IS NULL AND r.owner_id = $1';

/** What `GET /resources?limit=N` asks for (the default sort and list fields), as the service reads it. */
const DEFAULT_LIST = toResourceListQuery({ limit: 20 }).spec;

const callerOf = (owner: string): AuthContext => ({
  userId: owner,
  role: 'user',
  plan: 'enterprise',
  credential: 'session',
  scopes: ALL_SCOPES,
  credentialId: 'bench',
});

/** The owner's live resource with this id, or undefined. */
export async function findResource(pool: Pool, owner: string, id: string): Promise<unknown> {
  const { text, values } = visibleResourceStatement(callerOf(owner), id);
  const { rows } = await pool.query(text, values);
  return rows[0];
}

/** One cursor page of the owner's live resources, newest first, as the listing answers it. */
export async function cursorPage(pool: Pool, owner: string, limit: number, cursor: string | null): Promise<unknown> {
  const auth = callerOf(owner);
  const membershipsRead = membershipsStatement(owner);
  const memberships = await pool.query<Membership>(membershipsRead.text, membershipsRead.values);
  const scope = { auth, roles: new Map(memberships.rows.map((m) => [m.organizationId, m.role])) };
  const position = cursor ? (JSON.parse(Buffer.from(cursor, 'base64url').toString()) as string[]) : null;
  const page = keysetPageStatement(scope, DEFAULT_LIST, { position, backward: false, limit });
  const { rows } = await pool.query<ResourceListRow>(page.text, page.values);
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  const next = rows.length > limit && last ? Buffer.from(JSON.stringify([last.created_at, last.id])).toString('base64url') : null;
  return { data, meta: { cursor: { next, prev: null, has_more: next !== null }, limit } };
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
