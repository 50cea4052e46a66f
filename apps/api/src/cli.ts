import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { AppError } from '@app/common';
import { CliModule } from './cli/cli.module';
import { DatabasePreparationModule } from './cli/database-preparation.module';

/** An expected failure (bad input, unknown account) is its message; anything else keeps its stack. */
function describeFailure(error: Error): string {
  if (!(error instanceof AppError)) return `${error.stack ?? error.message}\n`;
  const details = (error.details ?? []).map((problem) => `  - ${problem.field}: ${problem.message}\n`);
  return `${error.message}\n${details.join('')}`;
}

async function main(): Promise<void> {
  // `db:prepare` makes the database, so it must start without the connection every other
  // command's module opens; help and the other commands get the full module.
  const rootModule = process.argv[2] === 'db:prepare' ? DatabasePreparationModule : CliModule;
  await CommandFactory.run(rootModule, {
    logger: ['error', 'warn'],
    abortOnError: false,
    serviceErrorHandler: (error) => {
      process.stderr.write(describeFailure(error));
      process.exitCode = 1;
    },
  });
}

// Exit explicitly: a connection left open by a failed command must not keep the CLI running.
main().then(
  () => process.exit(),
  (error: Error) => {
    process.stderr.write(describeFailure(error));
    process.exit(1);
  },
);
