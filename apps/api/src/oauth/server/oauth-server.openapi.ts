import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { responseHeaders } from '../../platform/openapi/http-headers';
import { OAuthErrorView } from './oauth-server.views';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'RFC 6749 error: `invalid_request`, `invalid_grant`, `unsupported_grant_type`, `invalid_scope`, `unauthorized_client`',
  401: '`invalid_client`: client authentication failed (with `WWW-Authenticate` when HTTP Basic was used)',
  413: '`invalid_request`: body over 1 MiB',
  415: '`invalid_request`: send application/x-www-form-urlencoded',
  429: '`temporarily_unavailable`: rate limit, see Retry-After',
  431: '`invalid_request`: the request line and headers exceed 16 KiB',
  500: '`server_error`',
  503: '`temporarily_unavailable`: a dependency did not answer, see Retry-After',
};

/** Every answer of the token, revocation and introspection endpoints is uncacheable (RFC 6749 5.1). */
const NO_STORE_HEADERS = responseHeaders('Cache-Control', 'Pragma');

/** A success answer of an OAuth machine endpoint: bare JSON, never cached. */
export function ApiOAuthResponse(description: string, schema: object): MethodDecorator {
  return ApiResponse({ status: 200, description, headers: NO_STORE_HEADERS, content: { 'application/json': { schema } } });
}

/** The errors of an OAuth endpoint, all in RFC 6749 form rather than the API's envelope, and never cached. */
export function ApiOAuthErrors(): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(OAuthErrorView),
    ...Object.entries(ERROR_DESCRIPTIONS).map(([status, description]) =>
      ApiResponse({
        status: Number(status),
        description,
        headers: status === '401' ? { ...NO_STORE_HEADERS, ...responseHeaders('WWW-Authenticate') } : NO_STORE_HEADERS,
        content: { 'application/json': { schema: { $ref: getSchemaPath(OAuthErrorView) } } },
      }),
    ),
  );
}

/** A form-encoded body of the given fields, with an example of its form when one makes sense outside a browser. */
export function ApiFormBody(
  properties: Record<string, { description: string; enum?: string[] }>,
  required: string[],
  example?: Record<string, string>,
): MethodDecorator {
  return applyDecorators(
    ApiConsumes('application/x-www-form-urlencoded'),
    ApiBody({
      schema: {
        type: 'object',
        required,
        properties: Object.fromEntries(Object.entries(properties).map(([name, doc]) => [name, { type: 'string', ...doc }])),
        example,
      },
    }),
  );
}

/** The headers of every page of the authorization endpoint: no script, no framing, no caching. */
const PAGE_HEADERS = responseHeaders(
  'Content-Security-Policy',
  'X-Frame-Options',
  'X-Content-Type-Options',
  'Referrer-Policy',
  'Cache-Control',
  'Set-Cookie',
);

/** An HTML page answer of the authorization endpoint. */
export function ApiHtmlResponse(status: number, description: string): MethodDecorator {
  return ApiResponse({ status, description, headers: PAGE_HEADERS, content: { 'text/html': { schema: { type: 'string' } } } });
}

/** A redirect answer of the authorization endpoint, with Express's short note of where it goes. */
export function ApiRedirectResponse(status: number, description: string): MethodDecorator {
  const note = { schema: { type: 'string' } };
  return ApiResponse({
    status,
    description,
    headers: responseHeaders('Location', 'Cache-Control', 'Set-Cookie'),
    content: { 'text/plain': note, 'text/html': note },
  });
}
