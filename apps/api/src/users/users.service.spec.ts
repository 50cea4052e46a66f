import { DataSource, EntityManager } from 'typeorm';
import { ConflictError } from '@app/common';
import { EventOutbox, NewEvent, UserEntity } from '@app/database';
import { UserRepository } from '../auth/user.repository';
import { PasswordHasher } from '../auth/password-hasher';
import { UsersService } from './users.service';

function userEntity(overrides: Partial<UserEntity> = {}): UserEntity {
  return {
    id: 'usr_1',
    email: 'ada@example.com',
    username: 'ada',
    passwordHash: 'hash',
    role: 'user',
    plan: 'free',
    firstName: null,
    lastName: null,
    avatarUrl: null,
    createdAt: new Date('2025-01-01T00:00:00.000Z'),
    updatedAt: new Date('2025-01-01T00:00:00.000Z'),
    ...overrides,
  };
}

function setup(stored: UserEntity = userEntity()) {
  const manager = {} as EntityManager;
  const dataSource = { transaction: jest.fn((work: (m: EntityManager) => unknown) => work(manager)) };
  const users = {
    findByIdForUpdate: jest.fn().mockResolvedValue(stored),
    update: jest.fn((_m: EntityManager, _id: string, changes: Partial<UserEntity>) =>
      Promise.resolve({ ...stored, ...changes, updatedAt: new Date('2025-02-01T00:00:00.000Z') }),
    ),
    insert: jest.fn((_m: EntityManager, user: UserEntity) =>
      Promise.resolve({ ...user, createdAt: stored.createdAt, updatedAt: stored.updatedAt }),
    ),
    takenFields: jest.fn().mockResolvedValue([]),
  };
  const appended: NewEvent[] = [];
  const events = {
    append: jest.fn((_m: EntityManager, list: NewEvent[]) => {
      appended.push(...list);
      return Promise.resolve();
    }),
  };
  const hasher = { hash: jest.fn().mockResolvedValue('$argon2id$hash') };
  const service = new UsersService(
    dataSource as unknown as DataSource,
    users as unknown as UserRepository,
    events as unknown as EventOutbox,
    hasher as unknown as PasswordHasher,
  );
  return { service, users, appended, hasher };
}

describe('UsersService', () => {
  describe('create', () => {
    it('stores the hash, never the password, and emits user.created with the view', async () => {
      const { service, users, appended } = setup();
      const view = await service.create({ email: 'ada@example.com', username: 'ada', password: 'password-1234' });
      expect(users.insert).toHaveBeenCalledWith(
        expect.anything(),
        expect.objectContaining({ passwordHash: '$argon2id$hash', role: 'user', plan: 'free' }),
      );
      expect(JSON.stringify(users.insert.mock.calls)).not.toContain('password-1234');
      expect(appended).toEqual([{ type: 'user.created', object: view, ownerId: view.id }]);
      expect(JSON.stringify(view)).not.toMatch(/password|hash/i);
    });

    it('refuses a taken email or username with 409 naming the fields', async () => {
      const { service, users } = setup();
      users.takenFields.mockResolvedValue(['email', 'username']);
      const error = (await service
        .create({ email: 'a@example.com', username: 'ada', password: 'password-1234' })
        .catch((e: unknown) => e)) as ConflictError;
      expect(error).toBeInstanceOf(ConflictError);
      expect(error.details?.map((d) => d.field)).toEqual(['email', 'username']);
      expect(users.insert).not.toHaveBeenCalled();
    });

    it('turns a unique violation of a concurrent registration into 409', async () => {
      const { service, users } = setup();
      users.takenFields.mockResolvedValueOnce([]).mockResolvedValueOnce(['email']);
      users.insert.mockRejectedValueOnce(Object.assign(new Error('duplicate key'), { code: '23505' }));
      await expect(
        service.create({ email: 'a@example.com', username: 'ada', password: 'password-1234' }),
      ).rejects.toBeInstanceOf(ConflictError);
    });
  });

  describe('updateProfile', () => {
    it('records the prior values of the changed fields only', async () => {
      const { service, appended } = setup(userEntity({ firstName: 'Ada', lastName: 'Byron' }));
      const view = await service.updateProfile('usr_1', { first_name: 'Ada', last_name: 'Lovelace' });
      expect(view.profile).toEqual({ first_name: 'Ada', last_name: 'Lovelace', avatar_url: null });
      expect(appended).toEqual([
        { type: 'user.updated', object: view, previousData: { profile: { last_name: 'Byron' } }, ownerId: 'usr_1' },
      ]);
    });

    it('clears a field sent as null', async () => {
      const { service, users, appended } = setup(userEntity({ avatarUrl: 'https://example.com/a.png' }));
      await service.updateProfile('usr_1', { avatar_url: null });
      expect(users.update).toHaveBeenCalledWith(expect.anything(), 'usr_1', { avatarUrl: null });
      expect(appended[0].previousData).toEqual({ profile: { avatar_url: 'https://example.com/a.png' } });
    });

    it.each([
      ['no fields', {}],
      ['the current values', { first_name: 'Ada', last_name: null }],
    ])('writes nothing for %s', async (_name, changes) => {
      const { service, users, appended } = setup(userEntity({ firstName: 'Ada' }));
      const view = await service.updateProfile('usr_1', changes);
      expect(view.updated_at).toBe('2025-01-01T00:00:00.000Z');
      expect(users.update).not.toHaveBeenCalled();
      expect(appended).toEqual([]);
    });
  });
});
