import { Command, CommandRunner, Option } from 'nest-commander';
import { PLANS } from '@app/common';
import { AccountAdministration } from './account-administration.service';
import { CliDataModule } from './cli-data.module';
import { CommandDependencies } from './command-dependencies';

interface SetPlanOptions {
  email: string;
  plan: string;
}

@Command({ name: 'set-plan', description: `Change an account's plan (${PLANS.join(', ')})` })
export class SetPlanCommand extends CommandRunner {
  constructor(private readonly dependencies: CommandDependencies) {
    super();
  }

  async run(_params: string[], options: SetPlanOptions): Promise<void> {
    const accounts = await this.dependencies.get(CliDataModule, AccountAdministration);
    const user = await accounts.setPlan(options.email, options.plan);
    process.stdout.write(`${user.email} is on the ${user.plan} plan\n`);
  }

  @Option({ flags: '--email <email>', description: 'Email of the account', required: true })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--plan <plan>', description: PLANS.join(' | '), required: true })
  parsePlan(value: string): string {
    return value;
  }
}
