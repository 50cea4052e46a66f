import { Injectable } from '@nestjs/common';
import { AuthContext, InsufficientPermissionsError, isId, ResourceNotFoundError } from '@app/common';
import { AccountDirectory } from '../auth/account-directory.service';
import { AdminUpdateUserDto } from './dto/admin-update-user.dto';
import { UserView } from './user.view';
import { UsersService } from './users.service';

/** What platform admins may change about any account: its role and plan. */
@Injectable()
export class AdminUsersService {
  constructor(
    private readonly users: UsersService,
    private readonly accounts: AccountDirectory,
  ) {}

  /** Sets role and plan, emits `user.updated` with the prior values, and drops the cached account. */
  async changeAccount(auth: AuthContext, id: string, changes: AdminUpdateUserDto): Promise<UserView> {
    if (auth.role !== 'admin') throw new InsufficientPermissionsError("Only platform admins may change a user's role or plan.");
    if (!isId('usr', id)) throw new ResourceNotFoundError('User', id);
    const view = await this.users.changeAccount(id, changes);
    // Other replicas pick the change up when their cache entry expires (seconds).
    this.accounts.forget(id);
    return view;
  }
}
