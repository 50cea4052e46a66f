import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiResponse, getSchemaPath, ApiExtraModels } from '@nestjs/swagger';
import { OAuthErrorView } from './oauth-server.views';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'RFC 6749 error: `invalid_request`, `invalid_grant`, `unsupported_grant_type`, `invalid_scope`, `unauthorized_client`',
  401: '`invalid_client`: client authentication failed (with `WWW-Authenticate` when HTTP Basic was used)',
  413: '`invalid_request`: body over 1 MiB',
  415: '`invalid_request`: send application/x-www-form-urlencoded',
  429: '`temporarily_unavailable`: rate limit, see Retry-After',
  500: '`server_error`',
  503: '`temporarily_unavailable`: a dependency did not answer, see Retry-After',
};

/** The errors of an OAuth endpoint, all in RFC 6749 form rather than the API's envelope. */
export function ApiOAuthErrors(): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(OAuthErrorView),
    ...Object.entries(ERROR_DESCRIPTIONS).map(([status, description]) =>
      ApiResponse({ status: Number(status), description, content: { 'application/json': { schema: { $ref: getSchemaPath(OAuthErrorView) } } } }),
    ),
  );
}

/** A form-encoded body of the given fields. */
export function ApiFormBody(properties: Record<string, { description: string; enum?: string[] }>, required: string[]): MethodDecorator {
  return applyDecorators(
    ApiConsumes('application/x-www-form-urlencoded'),
    ApiBody({
      schema: {
        type: 'object',
        required,
        properties: Object.fromEntries(Object.entries(properties).map(([name, doc]) => [name, { type: 'string', ...doc }])),
      },
    }),
  );
}

/** An HTML page answer of the authorization endpoint. */
export function ApiHtmlResponse(status: number, description: string): MethodDecorator {
  return ApiResponse({ status, description, content: { 'text/html': { schema: { type: 'string' } } } });
}

/** A redirect answer of the authorization endpoint. */
export function ApiRedirectResponse(status: number, description: string): MethodDecorator {
  return ApiResponse({ status, description, headers: { Location: { description: 'Where the browser goes next', schema: { type: 'string' } } } });
}
