import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthContext, ConflictError, newId, offsetMeta, Paginated, Plan, PlatformRole, ResourceNotFoundError } from '@app/common';
import { EventOutbox, UserEntity } from '@app/database';
import { UserRepository } from '../auth/user.repository';
import { PasswordHasher } from '../auth/password-hasher';
import { ProfileChangesDto } from './dto/update-profile.dto';
import { UserListQuery } from './dto/user-list.query';
import { toUserView, UserView } from './user.view';

const UNIQUE_VIOLATION = '23505';
const DEFAULT_PER_PAGE = 20;

/** What an account is made from; the password arrives in clear and is hashed here. */
export interface NewAccount {
  email: string;
  username: string;
  password: string;
}

const PROFILE_COLUMNS = {
  first_name: 'firstName',
  last_name: 'lastName',
  avatar_url: 'avatarUrl',
} as const satisfies Record<keyof ProfileChangesDto, keyof UserEntity>;

export interface AccountChanges {
  role?: PlatformRole;
  plan?: Plan;
}

@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UserRepository,
    private readonly events: EventOutbox,
    private readonly hasher: PasswordHasher,
  ) {}

  /** Creates an account and its `user.created` event in one transaction. */
  async create(input: NewAccount, role: PlatformRole = 'user'): Promise<UserView> {
    const taken = await this.users.takenFields(input.email, input.username);
    if (taken.length > 0) throw this.takenError(taken);
    const passwordHash = await this.hasher.hash(input.password);
    try {
      return await this.dataSource.transaction(async (manager) => {
        const user = await this.users.insert(manager, {
          id: newId('usr'),
          email: input.email,
          username: input.username,
          passwordHash,
          role,
          plan: 'free',
          firstName: null,
          lastName: null,
          avatarUrl: null,
        });
        const view = toUserView(user);
        await this.events.append(manager, [{ type: 'user.created', object: { ...view }, ownerId: user.id }]);
        return view;
      });
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
        throw this.takenError(await this.users.takenFields(input.email, input.username));
      }
      throw error;
    }
  }

  async get(userId: string): Promise<UserView> {
    const user = await this.users.findById(userId);
    if (!user) throw new ResourceNotFoundError('User', userId);
    return toUserView(user);
  }

  /**
   * A page of the users the caller may see: everyone for platform admins, otherwise the users
   * who share an organization with the caller (and the caller). `basePath` starts the links.
   */
  async list(auth: AuthContext, query: UserListQuery, basePath: string): Promise<Paginated<UserView>> {
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const filter = { search: query.search, role: query.role };
    const { total, users } = await this.users.pageVisible(auth, filter, (page - 1) * perPage, perPage);
    return new Paginated(users.map(toUserView), { ...offsetMeta(basePath, filter, page, perPage, total) });
  }

  /**
   * Sets an account's role and plan, writing `user.updated` with the prior values of what
   * changed; no change, no event. Who may do it is the caller's rule (admin API, operator CLI).
   */
  async changeAccount(userId: string, changes: AccountChanges): Promise<UserView> {
    return this.dataSource.transaction(async (manager) => {
      const before = await this.users.findByIdForUpdate(manager, userId);
      if (!before) throw new ResourceNotFoundError('User', userId);
      const update: AccountChanges = {};
      const previous: AccountChanges = {};
      if (changes.role !== undefined && changes.role !== before.role) {
        update.role = changes.role;
        previous.role = before.role;
      }
      if (changes.plan !== undefined && changes.plan !== before.plan) {
        update.plan = changes.plan;
        previous.plan = before.plan;
      }
      if (Object.keys(update).length === 0) return toUserView(before);
      const after = toUserView(await this.users.update(manager, userId, update));
      await this.events.append(manager, [
        { type: 'user.updated', object: { ...after }, previousData: { ...previous }, ownerId: userId },
      ]);
      return after;
    });
  }

  /**
   * Applies profile changes and writes `user.updated` with the prior values of the fields that
   * changed. `null` clears a field; a change to the current value is no change, and a request
   * without any change writes no event and keeps `updated_at`.
   */
  async updateProfile(userId: string, changes: ProfileChangesDto): Promise<UserView> {
    return this.dataSource.transaction(async (manager) => {
      const before = await this.users.findByIdForUpdate(manager, userId);
      if (!before) throw new ResourceNotFoundError('User', userId);
      const update: Partial<UserEntity> = {};
      const previous: Record<string, string | null> = {};
      for (const [field, column] of Object.entries(PROFILE_COLUMNS) as Array<[keyof ProfileChangesDto, 'firstName' | 'lastName' | 'avatarUrl']>) {
        const value = changes[field];
        if (value === undefined || value === before[column]) continue;
        update[column] = value;
        previous[field] = before[column];
      }
      if (Object.keys(update).length === 0) return toUserView(before);
      const after = await this.users.update(manager, userId, update);
      const view = toUserView(after);
      await this.events.append(manager, [
        { type: 'user.updated', object: { ...view }, previousData: { profile: previous }, ownerId: userId },
      ]);
      return view;
    });
  }

  private takenError(fields: Array<'email' | 'username'>): ConflictError {
    const list = fields.length > 0 ? fields : (['email'] as const);
    return new ConflictError(
      `An account with this ${list.join(' and ')} already exists.`,
      list.map((field) => ({ field, message: 'is already taken' })),
    );
  }
}
