import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AdminUsersController } from './admin-users.controller';
import { AdminUsersService } from './admin-users.service';
import { UsersModule } from './users.module';

/**
 * Admin changes to accounts. Apart from the users module because it drops entries of the
 * auth module's account cache, and the auth module already depends on the users module.
 * Imported after the users module so that `PATCH /users/me` is routed before `PATCH /users/:id`.
 */
@Module({
  imports: [AuthModule, UsersModule],
  controllers: [AdminUsersController],
  providers: [AdminUsersService],
})
export class AdminUsersModule {}
