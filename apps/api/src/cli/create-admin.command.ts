import { Command, CommandRunner, Option } from 'nest-commander';
import { ValidationError } from '@app/common';
import { AccountAdministration } from './account-administration.service';
import { CliDataModule } from './cli-data.module';
import { CommandDependencies } from './command-dependencies';

interface CreateAdminOptions {
  email: string;
  password?: string;
  passwordStdin?: boolean;
  username?: string;
  promoteExisting?: boolean;
}

/** The whole of standard input, less one trailing newline (`echo` and here-strings add one). */
async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

@Command({
  name: 'create-admin',
  description:
    'Create an admin account and print its id. An email that already has an account is refused unless ' +
    '--promote-existing is given. The password comes from --password or, kept out of the shell history, --password-stdin.',
})
export class CreateAdminCommand extends CommandRunner {
  constructor(private readonly dependencies: CommandDependencies) {
    super();
  }

  async run(_params: string[], options: CreateAdminOptions): Promise<void> {
    if (options.password !== undefined && options.passwordStdin) {
      throw ValidationError.field('password', 'give --password or --password-stdin, not both');
    }
    const password = options.passwordStdin ? await readStandardInput() : options.password;
    if (password === undefined && !options.promoteExisting) {
      throw ValidationError.field('password', 'is required to create an account: give --password or --password-stdin');
    }
    const accounts = await this.dependencies.get(CliDataModule, AccountAdministration);
    const { user, created } = await accounts.createAdmin({ ...options, password });
    process.stderr.write(created ? `Created admin ${user.email}\n` : `Promoted the existing account ${user.email} to admin\n`);
    process.stdout.write(`${user.id}\n`);
  }

  @Option({ flags: '--email <email>', description: 'Email of the account', required: true })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--password <password>', description: 'Password of a new account (10-128 characters)' })
  parsePassword(value: string): string {
    return value;
  }

  @Option({ flags: '--password-stdin', description: 'Read the password of a new account from standard input' })
  parsePasswordStdin(): boolean {
    return true;
  }

  @Option({ flags: '--username <username>', description: 'Username of a new account (default: from the email)' })
  parseUsername(value: string): string {
    return value;
  }

  @Option({ flags: '--promote-existing', description: 'Make the account that already has this email an admin' })
  parsePromoteExisting(): boolean {
    return true;
  }
}
