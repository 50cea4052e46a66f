import { Module } from '@nestjs/common';
import { UserRepository } from './user.repository';

/**
 * The users table, which auth owns (credentials, roles): the users context (profiles) and the
 * CLI import this module rather than AuthModule, which brings the JWT setup and the guards.
 */
@Module({
  providers: [UserRepository],
  exports: [UserRepository],
})
export class AccountsModule {}
