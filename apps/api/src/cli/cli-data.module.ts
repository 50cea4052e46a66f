import { Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { AccountsModule } from '../auth/accounts.module';
import { UsersModule } from '../users/users.module';
import { LegacyTokenRepository } from '../legacy-tokens/legacy-token.repository';
import { AccountAdministration } from './account-administration.service';

/** What the commands that work on data use: the API's database and services. */
@Module({
  imports: [ConfigModule, DatabaseModule, AccountsModule, UsersModule],
  // The legacy tokens' repository without LegacyTokensModule, whose route brings the JWT setup and guards.
  providers: [AccountAdministration, LegacyTokenRepository],
})
export class CliDataModule {}
