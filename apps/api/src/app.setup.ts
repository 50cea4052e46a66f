import { DynamicModule, INestApplication, NestApplicationOptions, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { NestPinoLogger } from '@app/common';
import { AppConfig } from '@app/config';
import { AppModule } from './app.module';
import { corsMiddleware } from './platform/cors/cors.middleware';
import { answerClientErrorsInEnvelope } from './platform/filters/client-error-responder';
import { EnvelopeExpressAdapter } from './platform/http/envelope-express-adapter';
import { writeLedgerMiddleware } from './platform/idempotency/write-ledger.middleware';
import { bodyParserMiddleware } from './platform/middleware/body-parser.middleware';
import { inOrder } from './platform/middleware/in-order';
import { requestIdMiddleware } from './platform/middleware/request-id.middleware';
import { API_PREFIX } from './platform/routing/api-prefix';
import { RouteIndex } from './platform/routing/route-index';
import { shadowedMethodMiddleware } from './platform/routing/shadowed-method.middleware';
import { requestSpanMiddleware } from './platform/tracing/server-span.middleware';
import { legacyApiMiddleware } from './legacy/legacy-api.middleware';
import { createHttpLogger } from './logging/http-logger';
import { LoggingModule } from './logging/logging.module';
import { LogOutput, ROOT_LOGGER } from './logging/root-logger';
import { HttpMetrics } from './metrics/http-metrics';
import { buildOpenApiDocument, setupOpenApi } from './openapi/openapi';

/** Paths served at the root, outside `/v2` (docs/api.md#root-paths). */
const ROOT_PATHS = [
  { path: 'health/{*path}', method: RequestMethod.ALL },
  { path: 'metrics', method: RequestMethod.ALL },
  { path: 'oauth/{*path}', method: RequestMethod.ALL },
  { path: '.well-known/{*path}', method: RequestMethod.ALL },
  { path: 'console{/*path}', method: RequestMethod.ALL },
];

/** Nest's options for the API: bodyParserMiddleware parses bodies, startup logs wait for pino, a failed start throws. */
export const API_APPLICATION_OPTIONS: NestApplicationOptions = { bodyParser: false, bufferLogs: true, abortOnError: false };

export interface ApiAppOptions {
  /** Where the logs go and from which level (default: stdout, `LOG_LEVEL`); tests capture them. */
  log?: LogOutput;
}

/** The root module: AppModule plus the logging module, whose output is a parameter. */
export function apiRootModule(options: ApiAppOptions = {}): DynamicModule {
  return { module: AppModule, imports: [LoggingModule.forRoot(options.log)] };
}

function setApiPrefix(app: INestApplication): void {
  app.setGlobalPrefix(API_PREFIX, { exclude: ROOT_PATHS });
}

/** Everything but the module graph: logger, express settings, early middleware, prefix, docs. */
export function configureApiApp(app: NestExpressApplication): void {
  app.useLogger(app.get(NestPinoLogger));
  const config = app.get(AppConfig);
  app.disable('x-powered-by');
  app.set('etag', false);
  // Conditional requests are the service's to evaluate (RFC 9110, whatever Cache-Control says):
  // Express must not turn an answer into a 304 on its own. `app.request` is Express's documented
  // extension point; that `res.send` reads `req.fresh` is not (docs/decisions.md).
  const express = app.getHttpAdapter().getInstance();
  Object.defineProperty(express.request, 'fresh', { get: () => false });
  app.set('trust proxy', config.TRUST_PROXY_HOPS);
  // Order matters: the server span first, so that it covers the rest; then the id, so that the
  // log line, the metrics and /v1's 410 all carry it; CORS before the body parser, so that a page
  // can read its refusals too; the write ledger last, entered around the route itself.
  app.use(
    inOrder<Request, Response>(
      requestSpanMiddleware(),
      requestIdMiddleware,
      createHttpLogger(app.get(ROOT_LOGGER)),
      app.get(HttpMetrics).middleware,
      corsMiddleware(config.corsOrigins),
      legacyApiMiddleware,
      shadowedMethodMiddleware(app.get(RouteIndex)),
      bodyParserMiddleware,
      writeLedgerMiddleware,
    ),
  );
  setApiPrefix(app);
  setupOpenApi(app);
  answerClientErrorsInEnvelope(app.getHttpServer());
  app.enableShutdownHooks();
}

/** Builds the API application exactly as production runs it; tests use the same function. */
export async function createApiApp(options: ApiAppOptions = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(apiRootModule(options), new EnvelopeExpressAdapter(), API_APPLICATION_OPTIONS);
  configureApiApp(app);
  return app;
}

/**
 * The document the API serves at `/openapi.json`, built from the module graph without starting
 * it: Nest's preview mode creates no provider, so nothing connects to PostgreSQL or Redis.
 */
export async function buildApiOpenApiDocument(config: AppConfig): Promise<OpenAPIObject> {
  const app = await NestFactory.create<NestExpressApplication>(apiRootModule(), new EnvelopeExpressAdapter(), { preview: true, logger: false });
  try {
    setApiPrefix(app);
    return buildOpenApiDocument(app, config);
  } finally {
    await app.close();
  }
}
