import '@app/config/require-supported-runtime';
import './tracing';
import 'reflect-metadata';
import { NestPinoLogger } from '@app/common';
import { AppConfig, ConfigValidationError, loadConfig } from '@app/config';
import { prepareDatabase } from '@app/database';
import { createApiApp } from './app.setup';

/** A bad environment ends the process with the names of the bad variables, not a stack trace. */
function configOrExit(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigValidationError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

async function bootstrap(): Promise<void> {
  const config = configOrExit();
  // Migrate before listening: the API is never reachable, nor ready, on an old schema.
  await prepareDatabase(config);
  const app = await createApiApp();
  await app.listen(config.PORT);
  app.get(NestPinoLogger).log(`Listening on port ${config.PORT}`, 'Bootstrap');
}

bootstrap().catch((error: unknown) => {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`The API failed to start: ${detail}\n`);
  process.exit(1);
});
