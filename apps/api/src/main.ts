import '@app/config/require-supported-runtime';
import './tracing';
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
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
  const { port } = app.getHttpServer().address() as AddressInfo;
  app.get(NestPinoLogger).log(whereToFind(port, config.PUBLIC_URL), 'Bootstrap');
}

/**
 * The one start-up line a person reads: where the API, its docs and the console are on this
 * machine, and the public origin when it is another (behind a proxy, in a deployment).
 */
function whereToFind(port: number, publicUrl: string): Record<string, string | number> {
  const local = `http://localhost:${port}`;
  const urls = { api_url: `${local}/v2`, docs_url: `${local}/docs`, console_url: `${local}/console` };
  const elsewhere = publicUrl === local ? '' : `; public URL ${publicUrl}`;
  return { msg: `Listening on port ${port}: API ${urls.api_url}, docs ${urls.docs_url}, console ${urls.console_url}${elsewhere}`, port, ...urls };
}

bootstrap().catch((error: unknown) => {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`The API failed to start: ${detail}\n`);
  process.exit(1);
});
