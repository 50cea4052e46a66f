import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { UserEntity } from '../entities/user.entity';

/** SQL for users. Emails compare case-insensitively, as the unique index does. */
@Injectable()
export class UserRepository {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  findById(id: string, manager?: EntityManager): Promise<UserEntity | null> {
    return (manager?.getRepository(UserEntity) ?? this.users).findOneBy({ id });
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

  /** Role and plan only: the fields the authentication hot path needs. */
  findAccount(id: string): Promise<Pick<UserEntity, 'id' | 'role' | 'plan'> | null> {
    return this.users.findOne({ select: { id: true, role: true, plan: true }, where: { id } });
  }
}
