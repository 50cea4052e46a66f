import { Module } from '@nestjs/common';
import { PasswordHasher } from './password-hasher';
import { UserRepository } from './user.repository';

/**
 * The users table, which auth owns (credentials, roles), and the one password hasher: the users
 * context (profiles) and the CLI import this module rather than AuthModule, which brings the JWT
 * setup and the guards.
 */
@Module({
  providers: [UserRepository, PasswordHasher],
  exports: [UserRepository, PasswordHasher],
})
export class AccountsModule {}
