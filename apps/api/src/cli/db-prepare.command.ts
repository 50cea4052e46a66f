import { Command, CommandRunner } from 'nest-commander';
import { DatabasePreparer } from '@app/database';
import { CommandDependencies } from './command-dependencies';
import { DatabasePreparationModule } from './database-preparation.module';

@Command({
  name: 'db:prepare',
  description: 'Create the database of DATABASE_DIRECT_URL (default: DATABASE_URL) if it is missing, then run pending migrations',
})
export class DbPrepareCommand extends CommandRunner {
  constructor(private readonly dependencies: CommandDependencies) {
    super();
  }

  async run(): Promise<void> {
    const preparer = await this.dependencies.get(DatabasePreparationModule, DatabasePreparer);
    const name = preparer.databaseName();
    const created = await preparer.ensureDatabase();
    process.stdout.write(created ? `Created database ${name}\n` : `Database ${name} exists\n`);
    const applied = await preparer.migrate();
    if (applied.length === 0) process.stdout.write('No pending migrations\n');
    for (const migration of applied) process.stdout.write(`Applied migration ${migration}\n`);
  }
}
