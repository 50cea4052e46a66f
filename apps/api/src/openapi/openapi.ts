import type { INestApplication } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ALL_SCOPES } from '@app/common';
import { describeScope } from '../auth/scope-descriptions';
import { AppConfig } from '@app/config';
import { API_TAGS } from '../platform/openapi/api-tags';
import { DELIVERY_HEADER_PARAMETERS, EVENT_MODELS, eventSchemas, eventWebhooks } from '../events/event.openapi';
import { sessionCookieName } from '../session/session-cookie';
import { REDOC_BUNDLE_PATH, REFERENCE_BOOT_PATH, serveApiReferencePage, serveRedocBundle, serveReferenceBootScript } from './api-reference';
import { normalizeOpenApiDocument } from './openapi-normalizer';

export const DOCS_PATH = 'docs';
export const OPENAPI_DOCUMENT_PATH = 'openapi.json';
const DOCUMENT_TITLE = 'Resource Management Service API';
/**
 * package.json's `license`: the service is proprietary (npm's `UNLICENSED`), which has no SPDX
 * identifier of its own, so the identifier is an SPDX reference to the owner's terms.
 */
const DOCUMENT_LICENSE = { name: 'UNLICENSED', identifier: 'LicenseRef-UNLICENSED' };

/** Every scope in words, as the consent page names them. */
const OAUTH_SCOPES = Object.fromEntries(ALL_SCOPES.map((scope) => [scope, describeScope(scope)]));

function describeService(sessionCookie: string): string {
  return [
    'HTTP JSON API for resources, users, organizations, credentials and webhooks.',
    '',
    'The current version lives under `/v2`; the OAuth 2.0 authorization server, the probes and the metrics live at',
    'the root. Events are delivered to your webhooks as described in the `webhooks` section.',
    'Bodies are JSON. A single record is `{ data }`, a list `{ data, meta }`, an error',
    '`{ error: { code, message, details? } }`. Every response carries `X-Request-ID`: send one',
    '(1-128 of `[A-Za-z0-9._-]`) to correlate, or read the one the service made.',
    '',
    'Send exactly one credential: `Authorization: Bearer <JWT>`, an `X-API-Key` header, or the',
    `\`${sessionCookie}\` session cookie (with \`X-CSRF-Token\` on unsafe methods).`,
    'Requests are rate limited per account and plan; see the `X-RateLimit-*` headers.',
    '',
    'The earlier API under `/v1` answers 410 Gone; exchange legacy tokens at `POST /v2/auth/migrate`.',
  ].join('\n');
}

/**
 * The OpenAPI 3.1 document of every controller and of the events delivered to webhooks,
 * normalized to stay exact as endpoints are added. Its one server is the service's public
 * origin, and paths are full (`/v2/resources`, `/oauth/token`), so that a client generated from
 * it reaches every operation.
 */
export function buildOpenApiDocument(app: INestApplication, appConfig: AppConfig): OpenAPIObject {
  // `__Host-rms_session` when PUBLIC_URL is https, `rms_session` otherwise.
  const sessionCookie = sessionCookieName(appConfig);
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(DOCUMENT_TITLE)
    .setVersion('2.0.0')
    .setDescription(describeService(sessionCookie))
    .addServer(appConfig.PUBLIC_URL, 'This deployment');
  for (const tag of API_TAGS) builder.addTag(tag.name, tag.description);
  const config = builder
    // Scheme names are the defaults of @ApiBearerAuth(), @ApiCookieAuth() and
    // @ApiSecurity('api_key'), so controllers name them without arguments.
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'The `data.access_token` of `POST /v2/auth/login` (paste it without `Bearer `). It lives 15 minutes; ' +
          '`POST /v2/auth/refresh` with the refresh token gives a new pair. Acts with every scope of the account.',
      },
      'bearer',
    )
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description:
          'The `data.key` of `POST /v2/api-keys` (`sk_test_...` or `sk_live_...`, shown once), sent as `X-API-Key`, ' +
          'never as a bearer token. Acts with the key\'s scopes.',
      },
      'api_key',
    )
    .addCookieAuth(
      sessionCookie,
      {
        type: 'apiKey',
        in: 'cookie',
        name: sessionCookie,
        description:
          'Set by `POST /v2/session/login`; a browser sends it by itself. Unsafe methods also need ' +
          '`X-CSRF-Token` with the `csrf_token` of the login answer.',
      },
      'cookie',
    )
    .addOAuth2(
      {
        type: 'oauth2',
        description:
          'An OAuth access token (`oat_...`) from `/oauth/token`, sent as `Authorization: Bearer`; it acts with its ' +
          'scopes. Register a client at `POST /v2/oauth-clients`; the authorization code flow needs PKCE (S256).',
        flows: {
          authorizationCode: {
            authorizationUrl: `${appConfig.PUBLIC_URL}/oauth/authorize`,
            tokenUrl: `${appConfig.PUBLIC_URL}/oauth/token`,
            refreshUrl: `${appConfig.PUBLIC_URL}/oauth/token`,
            scopes: OAUTH_SCOPES,
          },
          clientCredentials: { tokenUrl: `${appConfig.PUBLIC_URL}/oauth/token`, scopes: OAUTH_SCOPES },
        },
      },
      'oauth2',
    )
    .addSecurityRequirements('bearer')
    .addSecurityRequirements('api_key')
    .addSecurityRequirements('cookie')
    .addSecurityRequirements('oauth2')
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: EVENT_MODELS });
  // Nest's builder starts with an empty contact object; the service names no public contact.
  delete document.info.contact;
  document.info.license = DOCUMENT_LICENSE;
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...eventSchemas() },
    parameters: { ...document.components?.parameters, ...DELIVERY_HEADER_PARAMETERS },
  };
  return normalizeOpenApiDocument({ ...document, webhooks: eventWebhooks() });
}

/**
 * Serves the document at `/openapi.json` and the API reference at `/docs` (Redoc, with its
 * script served from node_modules), both at the root and without a credential. The document is
 * built on first request, not at start, and the same one is served after.
 */
export function setupOpenApi(app: INestApplication): void {
  let document: OpenAPIObject | undefined;
  const http = app.getHttpAdapter();
  http.get(`/${OPENAPI_DOCUMENT_PATH}`, (_req: Request, res: Response) => {
    document ??= buildOpenApiDocument(app, app.get(AppConfig));
    res.status(200).json(document);
  });
  http.get(`/${DOCS_PATH}`, serveApiReferencePage(DOCUMENT_TITLE, `/${OPENAPI_DOCUMENT_PATH}`));
  http.get(REFERENCE_BOOT_PATH, serveReferenceBootScript);
  http.get(REDOC_BUNDLE_PATH, serveRedocBundle);
}
