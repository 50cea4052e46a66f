import { Module } from '@nestjs/common';
import { CommandDependencies } from './command-dependencies';
import { CreateAdminCommand } from './create-admin.command';
import { DbPrepareCommand } from './db-prepare.command';
import { ImportLegacyTokensCommand } from './import-legacy-tokens.command';
import { SetPlanCommand } from './set-plan.command';
import { WebhooksListenCommand } from './webhooks-listen.command';
import { WebhooksCommand } from './webhooks.command';

/** Every command, one class per file, listed here. */
const COMMANDS = [DbPrepareCommand, CreateAdminCommand, SetPlanCommand, ImportLegacyTokensCommand, WebhooksCommand, WebhooksListenCommand];

/**
 * The admin CLI: the commands alone. What they work on is made when one runs
 * (`CommandDependencies`), so that help and option errors need no configuration.
 */
@Module({
  providers: [...COMMANDS, CommandDependencies],
})
export class CliModule {}
