import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuthContext } from '@app/common';
import { type OrganizationRole, Sql, SqlStatement, SqlStatements } from '@app/database';
import { organizationIdsOf } from '@app/database/published-sql/organization-members.sql';

/** Every field of a resource's single form, in the order views show them. */
export const RESOURCE_FIELDS = [
  'id',
  'name',
  'description',
  'type',
  'status',
  'metadata',
  'tags',
  'owner_id',
  'organization_id',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;
export type ResourceField = (typeof RESOURCE_FIELDS)[number];

export const RESOURCE_SORT_FIELDS = ['created_at', 'updated_at', 'name', 'type', 'status'] as const;
export type ResourceSortField = (typeof RESOURCE_SORT_FIELDS)[number];

export const RESOURCE_TYPES = ['standard', 'premium'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** The earlier API's third type; writes naming it are refused, filters on it match nothing. */
export const LEGACY_RESOURCE_TYPE = 'enterprise';

export const RESOURCE_STATUSES = ['active', 'archived'] as const;
export type ResourceStatus = (typeof RESOURCE_STATUSES)[number];

export type ResourceMetadataValue = string | number | boolean | null;
export type ResourceMetadata = Record<string, ResourceMetadataValue>;

/** A resource as the API shows it (snake_case, ISO 8601 timestamps), plus its version. */
export interface ResourceRecord {
  id: string;
  name: string;
  description: string | null;
  type: ResourceType;
  status: ResourceStatus;
  metadata: ResourceMetadata;
  tags: string[];
  owner_id: string;
  organization_id: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  version: number;
}

/** Some columns of a listed resource: always its id and the values of its sort keys. */
export type ResourceListRow = Partial<ResourceRecord> & Pick<ResourceRecord, 'id'>;

export interface ResourceListFilter {
  status?: readonly string[];
  type?: readonly string[];
  organizationId?: string;
}

export interface ResourceSortKey {
  field: ResourceSortField;
  descending: boolean;
}

export interface ResourceListSpec {
  filter: ResourceListFilter;
  sort: readonly ResourceSortKey[];
  /** Fields to return besides `id` and the sort keys. */
  fields: readonly ResourceField[];
}

export interface KeysetPageRequest {
  /** Values of the sort keys and the id of the row the page starts after (or before). */
  position: readonly string[] | null;
  backward: boolean;
  limit: number;
}

export interface KeysetPage {
  /** Rows in the order of the sort, whichever way the page was read. */
  rows: ResourceListRow[];
  /** More rows lie beyond the page in the direction it was read. */
  hasMore: boolean;
  /** Rows lie on the other side of the starting position (always false without one). */
  hasBehind: boolean;
}

/** A resource to insert; timestamps are ISO strings made by the caller. */
export type NewResourceRow = Omit<ResourceRecord, 'version' | 'updated_at' | 'deleted_at'>;

/** New content of a locked resource; its version goes up by one. */
export type ResourceContentRow = Pick<
  ResourceRecord,
  'id' | 'name' | 'description' | 'type' | 'status' | 'metadata' | 'tags' | 'updated_at'
>;

/** Positional parameters of one statement. */
class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const isoTimestamp = (column: string): string =>
  `to_char(r.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`;

const COLUMN_SQL: Record<ResourceField, string> = {
  id: 'r.id',
  name: 'r.name',
  description: 'r.description',
  type: 'r.type',
  status: 'r.status',
  metadata: 'r.metadata',
  tags: 'r.tags',
  owner_id: 'r.owner_id',
  organization_id: 'r.organization_id',
  created_at: isoTimestamp('created_at'),
  updated_at: isoTimestamp('updated_at'),
  deleted_at: isoTimestamp('deleted_at'),
};

const RECORD_COLUMNS = [...RESOURCE_FIELDS.map((field) => COLUMN_SQL[field]), 'r.version'].join(', ');

const SORT_CAST: Record<ResourceSortField, string> = {
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  name: 'text',
  type: 'text',
  status: 'text',
};

interface OrderKey {
  column: string;
  cast: string;
  descending: boolean;
}

/** The sort, with `id` as the final tie-breaker in the direction of the last key. */
function orderKeys(sort: readonly ResourceSortKey[]): OrderKey[] {
  const keys = sort.map((key) => ({ column: `r.${key.field}`, cast: SORT_CAST[key.field], descending: key.descending }));
  return [...keys, { column: 'r.id', cast: 'text', descending: keys[keys.length - 1]?.descending ?? false }];
}

function orderBy(keys: OrderKey[], reversed: boolean): string {
  return keys.map((key) => `${key.column} ${key.descending !== reversed ? 'DESC' : 'ASC'}`).join(', ');
}

/**
 * The rows after `position` in the order of `keys` (before it when `backward`), including the
 * row at `position` itself when `inclusive`. With one direction throughout this is a row
 * comparison, which PostgreSQL uses as an index range; mixed directions expand into ORs, with
 * a bound on the first key so that its index still narrows the scan.
 */
function keysetPredicate(
  keys: OrderKey[],
  position: readonly string[],
  backward: boolean,
  inclusive: boolean,
  params: SqlParams,
): string {
  const values = keys.map((key, index) => `${params.add(position[index])}::${key.cast}`);
  const operator = (key: OrderKey, orEqual: boolean): string =>
    `${key.descending !== backward ? '<' : '>'}${orEqual ? '=' : ''}`;
  if (keys.every((key) => key.descending === keys[0].descending)) {
    return `(${keys.map((key) => key.column).join(', ')}) ${operator(keys[0], inclusive)} (${values.join(', ')})`;
  }
  const branches = keys.map((key, index) => {
    const equal = keys.slice(0, index).map((previous, i) => `${previous.column} = ${values[i]}`);
    const last = index === keys.length - 1;
    return [...equal, `${key.column} ${operator(key, last && inclusive)} ${values[index]}`].join(' AND ');
  });
  return `${keys[0].column} ${operator(keys[0], true)} ${values[0]} AND ((${branches.join(') OR (')}))`;
}

/**
 * Who is listing or writing resources: the caller and their role in each organization they
 * belong to, read first. Reads of resources by id need only the caller's AuthContext.
 */
export interface ResourceScope {
  auth: AuthContext;
  /** The caller's role in each organization they belong to. */
  roles: ReadonlyMap<string, OrganizationRole>;
}

/**
 * The resources the caller may see: its own and those of the organizations they belong to, or
 * every one for a platform admin. These two predicates on `r` are the one place the rule is
 * written, in two forms of the same rule.
 *
 * `visibleById` is for statements that find rows by id, which the primary key drives: the
 * memberships are read by the same statement (computed once, as an InitPlan), so a read costs
 * one statement and sees a membership change from the next statement on.
 */
function visibleById(auth: AuthContext, params: SqlParams): string {
  if (auth.role === 'admin') return 'TRUE';
  const user = params.add(auth.userId);
  return `(r.owner_id = ${user} OR r.organization_id = ANY(ARRAY(${organizationIdsOf(user)})))`;
}

/**
 * `visibleInList` is for lists, which the planner must drive from the right index: it is given
 * the organization ids themselves (read first into the ResourceScope). Both arms have their own
 * index (owner_id, organization_id), which the planner ORs; with the ids hidden in a subquery
 * it cannot size that arm and scans the table instead.
 */
function visibleInList(scope: ResourceScope, params: SqlParams): string {
  if (scope.auth.role === 'admin') return 'TRUE';
  const own = `r.owner_id = ${params.add(scope.auth.userId)}`;
  if (scope.roles.size === 0) return own;
  return `(${own} OR r.organization_id = ANY(${params.add([...scope.roles.keys()])}::text[]))`;
}

function listWhere(scope: ResourceScope, filter: ResourceListFilter, params: SqlParams): string {
  const conditions = ['r.deleted_at IS NULL', visibleInList(scope, params)];
  if (filter.status) conditions.push(`r.status = ANY(${params.add(filter.status)}::text[])`);
  if (filter.type) conditions.push(`r.type = ANY(${params.add(filter.type)}::text[])`);
  if (filter.organizationId) conditions.push(`r.organization_id = ${params.add(filter.organizationId)}`);
  return conditions.join(' AND ');
}

function listColumns(spec: ResourceListSpec): string {
  const fields = new Set<ResourceField>(['id', ...spec.sort.map((key) => key.field), ...spec.fields]);
  return [...fields].map((field) => COLUMN_SQL[field]).join(', ');
}

/** The statement of `findVisible`. */
function visibleResourceStatement(auth: AuthContext, id: string): SqlStatement {
  const params = new SqlParams();
  const text = `SELECT ${RECORD_COLUMNS} FROM resources r
       WHERE r.id = ${params.add(id)} AND r.deleted_at IS NULL AND ${visibleById(auth, params)}`;
  return { text, values: params.values };
}

/**
 * The statement of one keyset page: the rows after (or before) a position in the sort, one more
 * than the limit, and whether rows lie behind the position.
 */
function keysetPageStatement(scope: ResourceScope, spec: ResourceListSpec, request: KeysetPageRequest): SqlStatement {
  const params = new SqlParams();
  const keys = orderKeys(spec.sort);
  const where = listWhere(scope, spec.filter, params);
  let conditions = where;
  let behind = '';
  if (request.position) {
    conditions += ` AND ${keysetPredicate(keys, request.position, request.backward, false, params)}`;
    const other = keysetPredicate(keys, request.position, !request.backward, true, params);
    // Not EXISTS: the planner drops its ORDER BY and may scan the table for the first match.
    // Ordered from the position, the index answers with the first entry it reads.
    behind = `, (SELECT 1 FROM resources r WHERE ${where} AND ${other}
                 ORDER BY ${orderBy(keys, !request.backward)} LIMIT 1) IS NOT NULL AS has_behind`;
  }
  const text = `SELECT ${listColumns(spec)}${behind} FROM resources r
       WHERE ${conditions}
       ORDER BY ${orderBy(keys, request.backward)}
       LIMIT ${params.add(request.limit + 1)}`;
  return { text, values: params.values };
}

/** The recordset of JSON rows that inserts and updates read from. */
const CONTENT_RECORD = `id text, name text, description text, type text, status text, metadata jsonb, tags jsonb`;

/** The statement of `insert`. */
function insertResourcesStatement(rows: readonly NewResourceRow[]): SqlStatement {
  return {
    text: `INSERT INTO resources
         (id, owner_id, organization_id, name, description, type, status, metadata, tags, version, created_at, updated_at)
       SELECT id, owner_id, organization_id, name, description, type, status, metadata, tags, 1, created_at, created_at
       FROM jsonb_to_recordset($1::jsonb)
         AS x(${CONTENT_RECORD}, owner_id text, organization_id text, created_at timestamptz)`,
    values: [JSON.stringify(rows)],
  };
}

/** The statement of `pageByOffset`. */
function offsetPageStatement(scope: ResourceScope, spec: ResourceListSpec, offset: number, limit: number): SqlStatement {
  const params = new SqlParams();
  const where = listWhere(scope, spec.filter, params);
  const order = orderBy(orderKeys(spec.sort), false);
  const text = `SELECT t.total, ${listColumns(spec)}
       FROM (SELECT count(*)::int AS total FROM resources r WHERE ${where}) t
       LEFT JOIN (
         resources r
         JOIN (SELECT r.id FROM resources r WHERE ${where} ORDER BY ${order}
               LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}) page ON page.id = r.id
       ) ON TRUE
       ORDER BY ${order}`;
  return { text, values: params.values };
}

/**
 * The statements of ResourceRepository, by name; the benchmark's bare floor sends the very same
 * ones.
 */
export const RESOURCE_SQL = {
  findVisible: visibleResourceStatement,
  lockVisible: (auth: AuthContext, id: string, includeDeleted: boolean): SqlStatement => {
    const params = new SqlParams();
    const live = includeDeleted ? '' : 'AND r.deleted_at IS NULL';
    const text = `SELECT ${RECORD_COLUMNS} FROM resources r
       WHERE r.id = ${params.add(id)} ${live} AND ${visibleById(auth, params)}
       FOR UPDATE`;
    return { text, values: params.values };
  },
  lockManyVisible: (auth: AuthContext, ids: readonly string[]): SqlStatement => {
    const params = new SqlParams();
    const text = `SELECT ${RECORD_COLUMNS} FROM resources r
       WHERE r.id = ANY(${params.add(ids)}::text[]) AND r.deleted_at IS NULL AND ${visibleById(auth, params)}
       ORDER BY r.id
       FOR UPDATE`;
    return { text, values: params.values };
  },
  insert: insertResourcesStatement,
  updateContent: (rows: readonly ResourceContentRow[]): SqlStatement => ({
    text: `UPDATE resources r
       SET name = x.name, description = x.description, type = x.type, status = x.status,
           metadata = x.metadata, tags = x.tags, updated_at = x.updated_at, version = r.version + 1
       FROM jsonb_to_recordset($1::jsonb) AS x(${CONTENT_RECORD}, updated_at timestamptz)
       WHERE r.id = x.id`,
    values: [JSON.stringify(rows)],
  }),
  move: (id: string, organizationId: string | null): SqlStatement => ({
    text: `UPDATE resources SET organization_id = $2 WHERE id = $1`,
    values: [id, organizationId],
  }),
  softDelete: (id: string, deletedAt: string): SqlStatement => ({
    text: `UPDATE resources SET deleted_at = $2, updated_at = $2, version = version + 1 WHERE id = $1`,
    values: [id, deletedAt],
  }),
  hardDelete: (id: string): SqlStatement => ({ text: `DELETE FROM resources WHERE id = $1`, values: [id] }),
  pageByOffset: offsetPageStatement,
  pageByKeyset: keysetPageStatement,
} satisfies SqlStatements;

/**
 * SQL for resources, hand-written for the hot paths: only the needed columns, timestamps
 * formatted by PostgreSQL, no entity hydration. Every read takes the caller's AuthContext or,
 * for lists, their ResourceScope.
 */
@Injectable()
export class ResourceRepository {
  constructor(private readonly sql: Sql) {}

  /** A live resource the caller can see, or null. */
  async findVisible(auth: AuthContext, id: string): Promise<ResourceRecord | null> {
    const [record] = await this.sql.rows<ResourceRecord>(RESOURCE_SQL.findVisible(auth, id));
    return record ?? null;
  }

  /** Locks a resource the caller can see for the rest of the transaction. */
  async lockVisible(
    manager: EntityManager,
    auth: AuthContext,
    id: string,
    options: { includeDeleted?: boolean } = {},
  ): Promise<ResourceRecord | null> {
    const [record] = await this.sql.rows<ResourceRecord>(RESOURCE_SQL.lockVisible(auth, id, options.includeDeleted ?? false), manager);
    return record ?? null;
  }

  /** Locks the live resources among `ids` the caller can see, in id order (no deadlocks). */
  lockManyVisible(manager: EntityManager, auth: AuthContext, ids: readonly string[]): Promise<ResourceRecord[]> {
    return this.sql.rows<ResourceRecord>(RESOURCE_SQL.lockManyVisible(auth, ids), manager);
  }

  /** Inserts any number of resources in one statement, at version 1. */
  async insert(manager: EntityManager, rows: readonly NewResourceRow[]): Promise<void> {
    await this.sql.run(RESOURCE_SQL.insert(rows), manager);
  }

  /** Writes new content of locked resources in one statement; each version goes up by one. */
  async updateContent(manager: EntityManager, rows: readonly ResourceContentRow[]): Promise<void> {
    await this.sql.run(RESOURCE_SQL.updateContent(rows), manager);
  }

  /** Sets the organization of a locked resource; its version moves with the content update that follows. */
  async move(manager: EntityManager, id: string, organizationId: string | null): Promise<void> {
    await this.sql.run(RESOURCE_SQL.move(id, organizationId), manager);
  }

  async softDelete(manager: EntityManager, id: string, deletedAt: string): Promise<void> {
    await this.sql.run(RESOURCE_SQL.softDelete(id, deletedAt), manager);
  }

  async hardDelete(manager: EntityManager, id: string): Promise<void> {
    await this.sql.run(RESOURCE_SQL.hardDelete(id), manager);
  }

  /**
   * One page by OFFSET, and the total, in one statement. The page's ids are read from the
   * index of the sort alone (an index-only scan past the skipped rows); only the rows of the
   * page are then fetched.
   */
  async pageByOffset(
    scope: ResourceScope,
    spec: ResourceListSpec,
    offset: number,
    limit: number,
  ): Promise<{ total: number; rows: ResourceListRow[] }> {
    const rows = await this.sql.rows<ResourceListRow & { total: number }>(RESOURCE_SQL.pageByOffset(scope, spec, offset, limit));
    const total = rows[0]?.total ?? 0;
    return { total, rows: rows.filter((row) => row.id !== null).map(({ total: _total, ...row }) => row) };
  }

  /**
   * One page by keyset: the rows after (or before) a position in the sort, read from the
   * index of the sort; a page deep in the list costs what the first one does.
   */
  async pageByKeyset(scope: ResourceScope, spec: ResourceListSpec, request: KeysetPageRequest): Promise<KeysetPage> {
    const rows = await this.sql.rows<ResourceListRow & { has_behind?: boolean }>(RESOURCE_SQL.pageByKeyset(scope, spec, request));
    const hasMore = rows.length > request.limit;
    const hasBehind = rows[0]?.has_behind === true;
    // The rows keep their `has_behind` column: every view of a row picks its own fields.
    const page: ResourceListRow[] = rows.slice(0, request.limit);
    if (request.backward) page.reverse();
    return { rows: page, hasMore, hasBehind };
  }
}
