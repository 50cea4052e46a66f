import { Module } from '@nestjs/common';
import { AccountsModule } from '../auth/accounts.module';
import { RegistrationController } from './registration.controller';
import { UserIdentities } from './user-identities.service';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  imports: [AccountsModule],
  controllers: [RegistrationController, UsersController],
  providers: [UsersService, UserIdentities],
  exports: [UsersService, UserIdentities],
})
export class UsersModule {}
