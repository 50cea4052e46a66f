import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuthContext } from '@app/common';
import { type OrganizationEntity, type OrganizationRole, Sql, SqlStatement, SqlStatements } from '@app/database';

/** An organization as the caller sees it, with the caller's role there (null: not a member). */
export interface VisibleOrganization extends OrganizationEntity {
  callerRole: OrganizationRole | null;
}

/** A membership of one organization; who the user is, the users context says. */
export interface MemberRecord {
  userId: string;
  role: OrganizationRole;
  createdAt: Date;
}

const ORGANIZATION_COLUMNS = `o.id, o.name, o.slug, o.created_at AS "createdAt", o.updated_at AS "updatedAt"`;
const MEMBER_COLUMNS = `m.user_id AS "userId", m.role, m.created_at AS "createdAt"`;

/**
 * The organizations the caller may see, as a join and predicate on `o`: every organization for
 * a platform admin, otherwise the ones they belong to. The caller's membership is `m`.
 */
function visibleFrom(auth: AuthContext, params: unknown[]): string {
  params.push(auth.userId);
  const join = `organizations o LEFT JOIN organization_members m ON m.organization_id = o.id AND m.user_id = $${params.length}`;
  return auth.role === 'admin' ? `${join} WHERE TRUE` : `${join} WHERE m.user_id IS NOT NULL`;
}

/** A caller's role in one organization. */
export interface Membership {
  organizationId: string;
  role: OrganizationRole;
}

/** The statements of OrganizationRepository, by name. */
export const ORGANIZATION_SQL = {
  countVisible: (auth: AuthContext): SqlStatement => {
    const params: unknown[] = [];
    const from = visibleFrom(auth, params);
    return { text: `SELECT count(*)::int AS total FROM ${from}`, values: params };
  },
  pageVisible: (auth: AuthContext, offset: number, limit: number): SqlStatement => {
    const params: unknown[] = [];
    const from = visibleFrom(auth, params);
    params.push(limit, offset);
    return {
      text: `SELECT ${ORGANIZATION_COLUMNS}, m.role AS "callerRole" FROM ${from}
       ORDER BY o.created_at, o.id LIMIT $2 OFFSET $3`,
      values: params,
    };
  },
  findVisible: (auth: AuthContext, id: string, lock: boolean): SqlStatement => {
    const params: unknown[] = [];
    const from = visibleFrom(auth, params);
    params.push(id);
    return {
      text: `SELECT ${ORGANIZATION_COLUMNS}, m.role AS "callerRole" FROM ${from} AND o.id = $2${lock ? ' FOR UPDATE OF o' : ''}`,
      values: params,
    };
  },
  insert: (organization: Pick<OrganizationEntity, 'id' | 'name' | 'slug'>): SqlStatement => ({
    text: `INSERT INTO organizations AS o (id, name, slug) VALUES ($1, $2, $3) RETURNING ${ORGANIZATION_COLUMNS}`,
    values: [organization.id, organization.name, organization.slug],
  }),
  insertOwner: (id: string, ownerId: string): SqlStatement => ({
    text: `INSERT INTO organization_members (organization_id, user_id, role) VALUES ($1, $2, 'owner')`,
    values: [id, ownerId],
  }),
  update: (id: string, changes: Partial<Pick<OrganizationEntity, 'name' | 'slug'>>): SqlStatement => ({
    text: `UPDATE organizations AS o SET name = COALESCE($2, name), slug = COALESCE($3, slug), updated_at = now()
       WHERE id = $1 RETURNING ${ORGANIZATION_COLUMNS}`,
    values: [id, changes.name ?? null, changes.slug ?? null],
  }),
  slugTaken: (slug: string, exceptId: string | null): SqlStatement => ({
    text: `SELECT 1 FROM organizations WHERE lower(slug) = lower($1) AND id IS DISTINCT FROM $2`,
    values: [slug, exceptId],
  }),
  delete: (id: string): SqlStatement => ({ text: `DELETE FROM organizations WHERE id = $1`, values: [id] }),
  pageMembers: (id: string, offset: number, limit: number): SqlStatement => ({
    // A page past the end still yields the count row, its member columns null.
    text: `SELECT t.total, page.*
       FROM (SELECT count(*)::int AS total FROM organization_members WHERE organization_id = $1) t
       LEFT JOIN (
         SELECT ${MEMBER_COLUMNS} FROM organization_members m
         WHERE m.organization_id = $1 ORDER BY m.created_at, m.user_id LIMIT $2 OFFSET $3
       ) page ON TRUE
       ORDER BY page."createdAt", page."userId"`,
    values: [id, limit, offset],
  }),
  findMember: (id: string, userId: string): SqlStatement => ({
    text: `SELECT ${MEMBER_COLUMNS} FROM organization_members m WHERE m.organization_id = $1 AND m.user_id = $2`,
    values: [id, userId],
  }),
  insertMember: (id: string, userId: string, role: OrganizationRole): SqlStatement => ({
    text: `INSERT INTO organization_members AS m (organization_id, user_id, role) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING ${MEMBER_COLUMNS}`,
    values: [id, userId, role],
  }),
  deleteMember: (id: string, userId: string): SqlStatement => ({
    text: `DELETE FROM organization_members WHERE organization_id = $1 AND user_id = $2`,
    values: [id, userId],
  }),
  countOwners: (id: string): SqlStatement => ({
    text: `SELECT count(*)::int AS owners FROM organization_members WHERE organization_id = $1 AND role = 'owner'`,
    values: [id],
  }),
  /** The benchmark's bare floor sends this one too. */
  memberships: (userId: string): SqlStatement => ({
    text: `SELECT organization_id AS "organizationId", role FROM organization_members WHERE user_id = $1`,
    values: [userId],
  }),
} satisfies SqlStatements;

/** SQL for organizations and their members. */
@Injectable()
export class OrganizationRepository {
  constructor(private readonly sql: Sql) {}

  /** One page of the organizations the caller may see, oldest first, and how many there are. */
  async pageVisible(
    auth: AuthContext,
    offset: number,
    limit: number,
  ): Promise<{ total: number; organizations: VisibleOrganization[] }> {
    const [counted] = await this.sql.rows<{ total: number }>(ORGANIZATION_SQL.countVisible(auth));
    const organizations = await this.sql.rows<VisibleOrganization>(ORGANIZATION_SQL.pageVisible(auth, offset, limit));
    return { total: counted?.total ?? 0, organizations };
  }

  /** The organization if the caller may see it; `lock` holds its row until the transaction ends. */
  async findVisible(auth: AuthContext, id: string, manager?: EntityManager, lock = false): Promise<VisibleOrganization | null> {
    const [row] = await this.sql.rows<VisibleOrganization>(ORGANIZATION_SQL.findVisible(auth, id, lock), manager);
    return row ?? null;
  }

  /** Creates the organization with `ownerId` as its first owner. */
  async insertWithOwner(
    manager: EntityManager,
    organization: Pick<OrganizationEntity, 'id' | 'name' | 'slug'>,
    ownerId: string,
  ): Promise<OrganizationEntity> {
    const [created] = await this.sql.rows<OrganizationEntity>(ORGANIZATION_SQL.insert(organization), manager);
    await this.sql.run(ORGANIZATION_SQL.insertOwner(organization.id, ownerId), manager);
    return created;
  }

  async update(manager: EntityManager, id: string, changes: Partial<Pick<OrganizationEntity, 'name' | 'slug'>>): Promise<OrganizationEntity> {
    const [updated] = await this.sql.rows<OrganizationEntity>(ORGANIZATION_SQL.update(id, changes), manager);
    return updated;
  }

  /** Whether a slug is taken, case-insensitively, by an organization other than `exceptId`. */
  async slugTaken(slug: string, exceptId?: string, manager?: EntityManager): Promise<boolean> {
    const rows = await this.sql.rows(ORGANIZATION_SQL.slugTaken(slug, exceptId ?? null), manager);
    return rows.length > 0;
  }

  /** Fails with a foreign key violation while any resource, even a soft-deleted one, still belongs to it. */
  async delete(manager: EntityManager, id: string): Promise<void> {
    await this.sql.run(ORGANIZATION_SQL.delete(id), manager);
  }

  /**
   * One page of the organization's members, in the order they joined, and how many there are,
   * in one statement.
   */
  async pageMembers(id: string, offset: number, limit: number): Promise<{ total: number; members: MemberRecord[] }> {
    const rows = await this.sql.rows<Omit<MemberRecord, 'userId'> & { userId: string | null; total: number }>(
      ORGANIZATION_SQL.pageMembers(id, offset, limit),
    );
    const members = rows
      .filter((row): row is MemberRecord & { total: number } => row.userId !== null)
      .map(({ total: _total, ...member }) => member);
    return { total: rows[0]?.total ?? 0, members };
  }

  async findMember(manager: EntityManager, id: string, userId: string): Promise<MemberRecord | null> {
    const [row] = await this.sql.rows<MemberRecord>(ORGANIZATION_SQL.findMember(id, userId), manager);
    return row ?? null;
  }

  /** Adds the member; null when the user already is one. */
  async insertMember(manager: EntityManager, id: string, userId: string, role: OrganizationRole): Promise<MemberRecord | null> {
    const [row] = await this.sql.rows<MemberRecord>(ORGANIZATION_SQL.insertMember(id, userId, role), manager);
    return row ?? null;
  }

  async deleteMember(manager: EntityManager, id: string, userId: string): Promise<void> {
    await this.sql.run(ORGANIZATION_SQL.deleteMember(id, userId), manager);
  }

  async countOwners(manager: EntityManager, id: string): Promise<number> {
    const [row] = await this.sql.rows<{ owners: number }>(ORGANIZATION_SQL.countOwners(id), manager);
    return row?.owners ?? 0;
  }

  /** The organizations the user belongs to and their role in each (the visibility check's first step). */
  memberships(userId: string): Promise<Membership[]> {
    return this.sql.rows<Membership>(ORGANIZATION_SQL.memberships(userId));
  }
}
