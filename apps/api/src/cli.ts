import '@app/config/require-supported-runtime';
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { AppError } from '@app/common';
import { ConfigValidationError, loadEnvFile } from '@app/config';
import { CliModule } from './cli/cli.module';
import { CommandFailure } from './cli/command-failure';

/** An expected failure (bad input or settings, unknown account) is its message; anything else keeps its stack. */
function describeFailure(error: Error): string {
  if (error instanceof ConfigValidationError || error instanceof CommandFailure) return `${error.message}\n`;
  if (!(error instanceof AppError)) return `${error.stack ?? error.message}\n`;
  const details = (error.details ?? []).map((problem) => `  - ${problem.field}: ${problem.message}\n`);
  return `${error.message}\n${details.join('')}`;
}

async function main(): Promise<void> {
  // Settings come from the environment and, for what the shell leaves unset, from .env, as for
  // `npm start`: an operator's shell on a development machine needs nothing exported.
  loadEnvFile('.env');
  await CommandFactory.run(CliModule, {
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
