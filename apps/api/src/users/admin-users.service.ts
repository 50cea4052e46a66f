import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthContext, InsufficientPermissionsError, isId, ResourceNotFoundError } from '@app/common';
import { EventRepository, UserEntity, UserRepository } from '@app/database';
import { AccountDirectory } from '../auth/account-directory.service';
import { AdminUpdateUserDto } from './dto/admin-update-user.dto';
import { toUserView, UserView } from './user.view';

/** What platform admins may change about any account: its role and plan. */
@Injectable()
export class AdminUsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UserRepository,
    private readonly events: EventRepository,
    private readonly accounts: AccountDirectory,
  ) {}

  /** Sets role and plan, emits `user.updated` with the prior values, and drops the cached account. */
  async changeAccount(auth: AuthContext, id: string, changes: AdminUpdateUserDto): Promise<UserView> {
    if (auth.role !== 'admin') throw new InsufficientPermissionsError("Only platform admins may change a user's role or plan.");
    if (!isId('usr', id)) throw new ResourceNotFoundError('User', id);
    const view = await this.dataSource.transaction(async (manager) => {
      const before = await this.users.findByIdForUpdate(manager, id);
      if (!before) throw new ResourceNotFoundError('User', id);
      const update: Partial<Pick<UserEntity, 'role' | 'plan'>> = {};
      const previous: Record<string, string> = {};
      if (changes.role !== undefined && changes.role !== before.role) {
        update.role = changes.role;
        previous.role = before.role;
      }
      if (changes.plan !== undefined && changes.plan !== before.plan) {
        update.plan = changes.plan;
        previous.plan = before.plan;
      }
      if (Object.keys(update).length === 0) return toUserView(before);
      const after = toUserView(await this.users.update(manager, id, update));
      await this.events.append(manager, [{ type: 'user.updated', object: { ...after }, previousData: previous, ownerId: id }]);
      return after;
    });
    // Other replicas pick the change up when their cache entry expires (seconds).
    this.accounts.forget(id);
    return view;
  }
}
