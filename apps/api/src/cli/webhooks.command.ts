import { Command, CommandRunner } from 'nest-commander';
import { WebhooksListenCommand } from './webhooks-listen.command';

/** `webhooks <subcommand>`: an account's webhooks, through the running API as any client would. */
@Command({ name: 'webhooks', description: "An account's webhooks, through the running API", subCommands: [WebhooksListenCommand] })
export class WebhooksCommand extends CommandRunner {
  run(): Promise<void> {
    this.command.outputHelp({ error: true });
    process.exitCode = 1;
    return Promise.resolve();
  }
}
