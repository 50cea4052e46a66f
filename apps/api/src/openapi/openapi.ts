import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ALL_SCOPES } from '@app/common';
import { describeScope } from '../oauth/authorize/pages/scope-descriptions';
import { AppConfig } from '@app/config';
import { sessionCookieName } from '../session/session-cookie';
import { normalizeOpenApiDocument } from './openapi-normalizer';

export const DOCS_PATH = 'docs';
export const OPENAPI_DOCUMENT_PATH = 'openapi.json';

/** Every scope in words, as the consent page names them. */
const OAUTH_SCOPES = Object.fromEntries(ALL_SCOPES.map((scope) => [scope, describeScope(scope)]));

function describeService(sessionCookie: string): string {
  return [
    'HTTP JSON API for resources, users, organizations, credentials and webhooks.',
    '',
    'Paths are relative to the `/v2` server; operational and OAuth paths live at the root.',
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

/** The OpenAPI document of every controller, normalized to stay valid as endpoints are added. */
export function buildOpenApiDocument(app: INestApplication, prefix: string): OpenAPIObject {
  // `__Host-rms_session` when PUBLIC_URL is https, `rms_session` otherwise.
  const sessionCookie = sessionCookieName(app.get(AppConfig));
  const config = new DocumentBuilder()
    .setTitle('Resource Management Service API')
    .setVersion('2.0.0')
    .setDescription(describeService(sessionCookie))
    .addServer(`/${prefix}`, 'Current version')
    // Scheme names are the defaults of @ApiBearerAuth(), @ApiCookieAuth() and
    // @ApiSecurity('api_key'), so controllers name them without arguments.
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /auth/login' },
      'bearer',
    )
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'sk_live_... or sk_test_...' }, 'api_key')
    .addCookieAuth(
      sessionCookie,
      { type: 'apiKey', in: 'cookie', name: sessionCookie, description: 'From POST /session/login' },
      'cookie',
    )
    .addOAuth2(
      {
        type: 'oauth2',
        description: 'An OAuth access token (`oat_...`) from /oauth/token, sent as `Authorization: Bearer`; it acts with its scopes.',
        flows: {
          authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes: OAUTH_SCOPES },
          clientCredentials: { tokenUrl: '/oauth/token', scopes: OAUTH_SCOPES },
        },
      },
      'oauth2',
    )
    .addSecurityRequirements('bearer')
    .addSecurityRequirements('api_key')
    .addSecurityRequirements('cookie')
    .addSecurityRequirements('oauth2')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey, methodKey) => `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
  });
  return normalizeOpenApiDocument(document, `/${prefix}`);
}

/**
 * Serves the document at `/openapi.json` and interactive docs at `/docs`, both at the root and
 * without a credential. The document is built on first request, not at start.
 */
export function setupOpenApi(app: INestApplication, prefix: string): void {
  SwaggerModule.setup(DOCS_PATH, app, () => buildOpenApiDocument(app, prefix), {
    jsonDocumentUrl: OPENAPI_DOCUMENT_PATH,
    raw: ['json'],
    customSiteTitle: 'Resource Management Service API',
    swaggerOptions: { persistAuthorization: true },
  });
}
