import { Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { ImportLegacyTokensCommand } from '../legacy-tokens/import-legacy-tokens.command';
import { UsersModule } from '../users/users.module';
import { AccountAdministration } from './account-administration.service';
import { CreateAdminCommand } from './create-admin.command';
import { DatabasePreparationModule } from './database-preparation.module';
import { SetPlanCommand } from './set-plan.command';

/** The commands that work on data: one class per file, listed here. */
const COMMANDS = [CreateAdminCommand, SetPlanCommand, ImportLegacyTokensCommand];

/** The admin CLI: every command, on the API's database and services. */
@Module({
  imports: [ConfigModule, DatabaseModule, UsersModule, DatabasePreparationModule],
  providers: [...COMMANDS, AccountAdministration],
})
export class CliModule {}
