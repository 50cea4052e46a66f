/**
 * The measured routes' SQL through a bare `pg` pool with no framework, authentication or
 * validation: shared by the baseline server and the Nest floor. Every read and write sends the
 * very statements the service sends (built by the same repository functions), for the same
 * caller: a user who owns the seeded resources, whose memberships a list reads first, as the
 * service does. The owner is fixed; cursors are unsigned base64 JSON positions.
 */
import type { Pool } from 'pg';
import { ALL_SCOPES, AuthContext, newId } from '@app/common';
import { EVENT_OUTBOX_SQL, NewEvent } from '@app/database';
import { RESOURCE_SQL, ResourceListRow, ResourceMetadata, ResourceRecord, ResourceScope, ResourceType } from '../apps/api/src/resources/resource.repository';
import { Membership, ORGANIZATION_SQL } from '../apps/api/src/organizations/organization.repository';
import { toResourceListQuery } from '../apps/api/src/resources/resource-list-query';
import { toResourceView } from '../apps/api/src/resources/resource.view';

/** What `GET /resources` asks for without options (the default sort and list fields), as the service reads it. */
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
  const { text, values } = RESOURCE_SQL.findVisible(callerOf(owner), id);
  const { rows } = await pool.query(text, values);
  return rows[0];
}

/** One cursor page of the owner's live resources, newest first, as the listing answers it. */
export async function cursorPage(pool: Pool, owner: string, limit: number, cursor: string | null): Promise<unknown> {
  const scope = await scopeOf(pool, owner);
  const position = cursor ? (JSON.parse(Buffer.from(cursor, 'base64url').toString()) as string[]) : null;
  const page = RESOURCE_SQL.pageByKeyset(scope, DEFAULT_LIST, { position, backward: false, limit });
  const { rows } = await pool.query<ResourceListRow>(page.text, page.values);
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  const next = rows.length > limit && last ? Buffer.from(JSON.stringify([last.created_at, last.id])).toString('base64url') : null;
  return { data, meta: { cursor: { next, prev: null, has_more: next !== null }, limit } };
}

/** One offset page of the owner's live resources and their total, in one statement after the memberships. */
export async function offsetPage(pool: Pool, owner: string, page: number, perPage: number): Promise<unknown> {
  const scope = await scopeOf(pool, owner);
  const statement = RESOURCE_SQL.pageByOffset(scope, DEFAULT_LIST, (page - 1) * perPage, perPage);
  const { rows } = await pool.query<ResourceListRow & { total: number }>(statement.text, statement.values);
  const total = rows[0]?.total ?? 0;
  const data = rows.filter((row) => row.id !== null).map(({ total: _total, ...row }) => row);
  return { data, meta: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) } };
}

/** The fields of a create the floor and the baseline read; they validate nothing. */
export interface ResourceInput {
  name: string;
  description?: string | null;
  type?: ResourceType;
  metadata?: ResourceMetadata;
  tags?: string[];
}

/**
 * Creates the owner's resources and their `resource.created` events in one transaction, with the
 * service's two statements, records and event objects (`ResourcesService.insert`).
 */
export async function insertResources(pool: Pool, owner: string, inputs: readonly ResourceInput[]): Promise<ResourceRecord[]> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  const records = inputs.map(
    (input): ResourceRecord => ({
      id: newId('res', now),
      name: input.name.trim(),
      description: input.description ?? null,
      type: input.type ?? 'standard',
      status: 'active',
      metadata: input.metadata ?? {},
      tags: input.tags ?? [],
      owner_id: owner,
      organization_id: null,
      created_at: at,
      updated_at: at,
      deleted_at: null,
      version: 1,
    }),
  );
  const events = records.map(
    (record): NewEvent => ({
      type: 'resource.created',
      object: { ...toResourceView(record) },
      previousData: null,
      ownerId: record.owner_id,
      organizationId: record.organization_id,
    }),
  );
  const resourcesInsert = RESOURCE_SQL.insert(records);
  const eventsInsert = EVENT_OUTBOX_SQL.append(events);
  const client = await pool.connect();
  try {
    // What TypeORM's DataSource.transaction sends around the service's two statements.
    await client.query('START TRANSACTION');
    await client.query(resourcesInsert.text, resourcesInsert.values);
    await client.query(eventsInsert.text, eventsInsert.values);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  return records;
}

/** The caller and their organization roles, read first as the service's lists read them. */
async function scopeOf(pool: Pool, owner: string): Promise<ResourceScope> {
  const membershipsRead = ORGANIZATION_SQL.memberships(owner);
  const memberships = await pool.query<Membership>(membershipsRead.text, membershipsRead.values);
  return { auth: callerOf(owner), roles: new Map(memberships.rows.map((m) => [m.organizationId, m.role])) };
}
