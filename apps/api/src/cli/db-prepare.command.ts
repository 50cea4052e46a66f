import { Command, CommandRunner } from 'nest-commander';
import { DatabasePreparer } from '@app/database';

@Command({
  name: 'db:prepare',
  description: 'Create the database of DATABASE_URL if it is missing, then run pending migrations',
})
export class DbPrepareCommand extends CommandRunner {
  constructor(private readonly preparer: DatabasePreparer) {
    super();
  }

  async run(): Promise<void> {
    const name = this.preparer.databaseName();
    const created = await this.preparer.ensureDatabase();
    process.stdout.write(created ? `Created database ${name}\n` : `Database ${name} exists\n`);
    const applied = await this.preparer.migrate();
    if (applied.length === 0) process.stdout.write('No pending migrations\n');
    for (const migration of applied) process.stdout.write(`Applied migration ${migration}\n`);
  }
}
