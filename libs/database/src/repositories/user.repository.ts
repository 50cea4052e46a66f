import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import type { AuthContext, PlatformRole } from '@app/common';
import { UserEntity } from '../entities/user.entity';
import { organizationPeersOf } from './organization-members.sql';

/** A user as other contexts show them: id, username and email, never more. */
export type UserIdentity = Pick<UserEntity, 'id' | 'username' | 'email'>;

export interface UserListFilter {
  /** Case-insensitive substring of the email or username, matched literally. */
  search?: string;
  role?: PlatformRole;
}

/** The listed columns under the entity's property names; never the password hash. */
const LIST_COLUMNS = `u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
  u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt"`;

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

/** SQL for users. Emails compare case-insensitively, as the unique index does. */
@Injectable()
export class UserRepository {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly dataSource: DataSource,
  ) {}

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
    const params: unknown[] = [];
    const where = listWhere(auth, filter, params);
    params.push(limit, offset);
    // A page past the end still yields the count row, its user columns null.
    const rows: Array<Omit<UserEntity, 'id'> & { id: string | null; total: number }> = await this.dataSource.query(
      `SELECT t.total, page.*
       FROM (SELECT count(*)::int AS total FROM users u WHERE ${where}) t
       LEFT JOIN (
         SELECT ${LIST_COLUMNS} FROM users u WHERE ${where}
         ORDER BY u.created_at, u.id
         LIMIT $${params.length - 1} OFFSET $${params.length}
       ) page ON TRUE
       ORDER BY page."createdAt", page.id`,
      params,
    );
    const users = rows
      .filter((row): row is UserEntity & { total: number } => row.id !== null)
      .map(({ total: _total, ...user }) => user);
    return { total: rows[0]?.total ?? 0, users };
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ id });
  }

  /** The user, row-locked until the transaction ends, so concurrent updates see each other's result. */
  findByIdForUpdate(manager: EntityManager, id: string): Promise<UserEntity | null> {
    return manager.getRepository(UserEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** The user with its password hash, for credential checks. */
  findByEmailWithPassword(email: string): Promise<UserEntity | null> {
    return this.users
      .createQueryBuilder('user')
      .addSelect('user.passwordHash')
      .where('lower(user.email) = lower(:email)', { email })
      .getOne();
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.createQueryBuilder('user').where('lower(user.email) = lower(:email)', { email }).getOne();
  }

  /** Which of the given email and username are already taken. */
  async takenFields(email: string, username: string): Promise<Array<'email' | 'username'>> {
    const rows = await this.users
      .createQueryBuilder('user')
      .select(['user.email', 'user.username'])
      .where('lower(user.email) = lower(:email) OR user.username = :username', { email, username })
      .getMany();
    const taken = new Set<'email' | 'username'>();
    for (const row of rows) {
      if (row.email.toLowerCase() === email.toLowerCase()) taken.add('email');
      if (row.username === username) taken.add('username');
    }
    return [...taken];
  }

  async insert(manager: EntityManager, user: Omit<UserEntity, 'createdAt' | 'updatedAt'>): Promise<UserEntity> {
    const repository = manager.getRepository(UserEntity);
    await repository.insert(user);
    return repository.findOneByOrFail({ id: user.id });
  }

  async update(manager: EntityManager, id: string, changes: Partial<UserEntity>): Promise<UserEntity> {
    const repository = manager.getRepository(UserEntity);
    await repository.update({ id }, changes);
    return repository.findOneByOrFail({ id });
  }

  /** The id, username and email of each of these users that exists, in one read. */
  findIdentities(ids: readonly string[]): Promise<UserIdentity[]> {
    return this.users.find({ select: { id: true, username: true, email: true }, where: { id: In([...ids]) } });
  }

  /** Role and plan only: the fields the authentication hot path needs. */
  findAccount(id: string): Promise<Pick<UserEntity, 'id' | 'role' | 'plan'> | null> {
    return this.users.findOne({ select: { id: true, role: true, plan: true }, where: { id } });
  }
}
