import { Command, CommandRunner, Option } from 'nest-commander';
import { AccountAdministration, AdminAccountInput } from './account-administration.service';

@Command({
  name: 'create-admin',
  description: 'Create an admin account, or promote the account with this email; prints the user id',
})
export class CreateAdminCommand extends CommandRunner {
  constructor(private readonly accounts: AccountAdministration) {
    super();
  }

  async run(_params: string[], options: AdminAccountInput): Promise<void> {
    const { user, created } = await this.accounts.createAdmin(options);
    process.stderr.write(created ? `Created admin ${user.email}\n` : `${user.email} already had an account; it is now an admin\n`);
    process.stdout.write(`${user.id}\n`);
  }

  @Option({ flags: '--email <email>', description: 'Email of the account', required: true })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--password <password>', description: 'Password of a new account (10-128 characters)', required: true })
  parsePassword(value: string): string {
    return value;
  }

  @Option({ flags: '--username <username>', description: 'Username of a new account (default: from the email)' })
  parseUsername(value: string): string {
    return value;
  }
}
