import { Module } from '@nestjs/common';
import { PasswordHasher } from '../auth/password-hasher';
import { RegistrationController } from './registration.controller';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  controllers: [RegistrationController, UsersController],
  providers: [UsersService, PasswordHasher],
  exports: [UsersService],
})
export class UsersModule {}
