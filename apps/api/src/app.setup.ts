import { RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppConfig } from '@app/config';
import { AppModule } from './app.module';
import { requestIdMiddleware } from './common/middleware/request-id.middleware';

export const API_PREFIX = 'v2';

/** Paths served at the root, outside `/v2` (decisions 1). */
const ROOT_PATHS = [
  { path: 'health/{*path}', method: RequestMethod.ALL },
  { path: 'metrics', method: RequestMethod.ALL },
  { path: 'oauth/{*path}', method: RequestMethod.ALL },
  { path: '.well-known/{*path}', method: RequestMethod.ALL },
];

/** Builds the API application exactly as production runs it; tests use the same function. */
export async function createApiApp(): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    bufferLogs: true,
  });
  const config = app.get(AppConfig);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY_HOPS);
  app.use(requestIdMiddleware);
  app.setGlobalPrefix(API_PREFIX, { exclude: ROOT_PATHS });
  app.enableShutdownHooks();
  return app;
}
