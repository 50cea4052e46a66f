import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuthContext, PlatformRole } from '@app/common';
import { Sql, SqlStatement, SqlStatements, type UserEntity } from '@app/database';
import { organizationPeersOf } from '@app/database/published-sql/organization-members.sql';

/** A user as other contexts show them: id, username and email, never more. */
export type UserIdentity = Pick<UserEntity, 'id' | 'username' | 'email'>;

export interface UserListFilter {
  /** Case-insensitive substring of the email or username, matched literally. */
  search?: string;
  role?: PlatformRole;
}

/** What an update may change; any field left out keeps its value. */
export type UserChanges = Partial<Pick<UserEntity, 'role' | 'plan' | 'firstName' | 'lastName' | 'avatarUrl'>>;

/** The listed columns under the entity's property names; never the password hash. */
const LIST_COLUMNS = `u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
  u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt"`;

/** The column of each field an update may change, in the order the statement sets them. */
const CHANGE_COLUMNS: Record<keyof UserChanges, string> = {
  role: 'role',
  plan: 'plan',
  firstName: 'first_name',
  lastName: 'last_name',
  avatarUrl: 'avatar_url',
};

/**
 * The users the caller may see, as a predicate on `u`: everyone for a platform admin, else
 * themselves and the users who share an organization with them. The one place the rule is
 * written; both membership lookups read organization_members by an index.
 */
function visibleTo(auth: AuthContext, params: unknown[]): string {
  if (auth.role === 'admin') return 'TRUE';
  params.push(auth.userId);
  const caller = `$${params.length}`;
  return `(u.id = ${caller} OR u.id IN (${organizationPeersOf(caller)}))`;
}

function listWhere(auth: AuthContext, filter: UserListFilter, params: unknown[]): string {
  const conditions = [visibleTo(auth, params)];
  if (filter.search !== undefined) {
    // Backslash is LIKE's escape character: `%`, `_` and `\` in the term match themselves.
    params.push(`%${filter.search.replace(/[\\%_]/g, '\\$&')}%`);
    conditions.push(`(u.email ILIKE $${params.length} OR u.username ILIKE $${params.length})`);
  }
  if (filter.role !== undefined) {
    params.push(filter.role);
    conditions.push(`u.role = $${params.length}`);
  }
  return conditions.join(' AND ');
}

/** The statements of UserRepository, by name. Emails compare case-insensitively, as the unique index does. */
export const USER_SQL = {
  pageVisible: (auth: AuthContext, filter: UserListFilter, offset: number, limit: number): SqlStatement => {
    const params: unknown[] = [];
    const where = listWhere(auth, filter, params);
    params.push(limit, offset);
    // A page past the end still yields the count row, its user columns null.
    return {
      text: `SELECT t.total, page.*
       FROM (SELECT count(*)::int AS total FROM users u WHERE ${where}) t
       LEFT JOIN (
         SELECT ${LIST_COLUMNS} FROM users u WHERE ${where}
         ORDER BY u.created_at, u.id
         LIMIT $${params.length - 1} OFFSET $${params.length}
       ) page ON TRUE
       ORDER BY page."createdAt", page.id`,
      values: params,
    };
  },
  findById: (id: string): SqlStatement => ({ text: `SELECT ${LIST_COLUMNS} FROM users u WHERE u.id = $1`, values: [id] }),
  findByIdForUpdate: (id: string): SqlStatement => ({
    text: `SELECT ${LIST_COLUMNS} FROM users u WHERE u.id = $1 FOR UPDATE`,
    values: [id],
  }),
  findByEmailWithPassword: (email: string): SqlStatement => ({
    text: `SELECT ${LIST_COLUMNS}, u.password_hash AS "passwordHash" FROM users u WHERE lower(u.email) = lower($1)`,
    values: [email],
  }),
  findByEmail: (email: string): SqlStatement => ({
    text: `SELECT ${LIST_COLUMNS} FROM users u WHERE lower(u.email) = lower($1)`,
    values: [email],
  }),
  takenFields: (email: string, username: string): SqlStatement => ({
    text: `SELECT u.email, u.username FROM users u WHERE lower(u.email) = lower($1) OR u.username = $2`,
    values: [email, username],
  }),
  insert: (user: Omit<UserEntity, 'createdAt' | 'updatedAt'>): SqlStatement => ({
    text: `INSERT INTO users AS u (id, email, username, password_hash, role, plan, first_name, last_name, avatar_url)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${LIST_COLUMNS}`,
    values: [user.id, user.email, user.username, user.passwordHash, user.role, user.plan, user.firstName, user.lastName, user.avatarUrl],
  }),
  update: (id: string, changes: UserChanges): SqlStatement => {
    const values: unknown[] = [id];
    const set = (Object.keys(CHANGE_COLUMNS) as Array<keyof UserChanges>)
      .filter((field) => changes[field] !== undefined)
      .map((field) => {
        values.push(changes[field]);
        return `${CHANGE_COLUMNS[field]} = $${values.length}`;
      });
    return {
      text: `UPDATE users AS u SET ${[...set, 'updated_at = now()'].join(', ')} WHERE u.id = $1 RETURNING ${LIST_COLUMNS}`,
      values,
    };
  },
  findIdentities: (ids: readonly string[]): SqlStatement => ({
    text: `SELECT u.id, u.username, u.email FROM users u WHERE u.id = ANY($1::text[])`,
    values: [ids],
  }),
  findAccount: (id: string): SqlStatement => ({ text: `SELECT u.id, u.role, u.plan FROM users u WHERE u.id = $1`, values: [id] }),
} satisfies SqlStatements;

/**
 * SQL for the users table: the profiles the users context shows and changes, the credentials and
 * roles auth checks (the table is auth's, which users/ and the CLI stand on).
 */
@Injectable()
export class UserRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * One page of the users the caller may see, oldest first (`id` breaks ties), and how many
   * match, in one statement.
   */
  async pageVisible(
    auth: AuthContext,
    filter: UserListFilter,
    offset: number,
    limit: number,
  ): Promise<{ total: number; users: UserEntity[] }> {
    const rows = await this.sql.rows<Omit<UserEntity, 'id'> & { id: string | null; total: number }>(
      USER_SQL.pageVisible(auth, filter, offset, limit),
    );
    const users = rows
      .filter((row): row is UserEntity & { total: number } => row.id !== null)
      .map(({ total: _total, ...user }) => user);
    return { total: rows[0]?.total ?? 0, users };
  }

  async findById(id: string): Promise<UserEntity | null> {
    const [user] = await this.sql.rows<UserEntity>(USER_SQL.findById(id));
    return user ?? null;
  }

  /** The user, row-locked until the transaction ends, so concurrent updates see each other's result. */
  async findByIdForUpdate(manager: EntityManager, id: string): Promise<UserEntity | null> {
    const [user] = await this.sql.rows<UserEntity>(USER_SQL.findByIdForUpdate(id), manager);
    return user ?? null;
  }

  /** The user with its password hash, for credential checks. */
  async findByEmailWithPassword(email: string): Promise<UserEntity | null> {
    const [user] = await this.sql.rows<UserEntity>(USER_SQL.findByEmailWithPassword(email));
    return user ?? null;
  }

  async findByEmail(email: string): Promise<UserEntity | null> {
    const [user] = await this.sql.rows<UserEntity>(USER_SQL.findByEmail(email));
    return user ?? null;
  }

  /** Which of the given email and username are already taken. */
  async takenFields(email: string, username: string): Promise<Array<'email' | 'username'>> {
    const rows = await this.sql.rows<Pick<UserEntity, 'email' | 'username'>>(USER_SQL.takenFields(email, username));
    const taken = new Set<'email' | 'username'>();
    for (const row of rows) {
      if (row.email.toLowerCase() === email.toLowerCase()) taken.add('email');
      if (row.username === username) taken.add('username');
    }
    return [...taken];
  }

  async insert(manager: EntityManager, user: Omit<UserEntity, 'createdAt' | 'updatedAt'>): Promise<UserEntity> {
    const [created] = await this.sql.rows<UserEntity>(USER_SQL.insert(user), manager);
    return created;
  }

  async update(manager: EntityManager, id: string, changes: UserChanges): Promise<UserEntity> {
    const [updated] = await this.sql.rows<UserEntity>(USER_SQL.update(id, changes), manager);
    return updated;
  }

  /** The id, username and email of each of these users that exists, in one read. */
  findIdentities(ids: readonly string[]): Promise<UserIdentity[]> {
    return this.sql.rows<UserIdentity>(USER_SQL.findIdentities(ids));
  }

  /** Role and plan only: the fields the authentication hot path needs. */
  async findAccount(id: string): Promise<Pick<UserEntity, 'id' | 'role' | 'plan'> | null> {
    const [account] = await this.sql.rows<Pick<UserEntity, 'id' | 'role' | 'plan'>>(USER_SQL.findAccount(id));
    return account ?? null;
  }
}
