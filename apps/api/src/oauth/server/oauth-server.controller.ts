import { Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { AcceptsClientBasic, Public } from '../../platform/decorators/public.decorator';
import { ApiTag } from '../../platform/openapi/api-tags';
import { responseHeaders } from '../../platform/openapi/http-headers';
import { AuthorizationServer } from './authorization-server';
import { authorizationServerMetadata } from './authorization-server-metadata';
import type { OAuthAnswer } from './oauth-answer';
import { ApiFormBody, ApiOAuthErrors, ApiOAuthResponse } from './oauth-server.openapi';
import { AuthorizationServerMetadataView, OAuthIntrospectionView, OAuthTokenResponseView } from './oauth-server.views';
import { TokenAdministrationService } from './token-administration.service';

const CLIENT_FIELDS = {
  client_id: { description: 'The client, unless sent with HTTP Basic' },
  client_secret: { description: "A confidential client's secret, unless sent with HTTP Basic" },
};
const EXAMPLE_CLIENT = { client_id: 'cli_01JD3Q0F6K8W2M4N6P8R0T2V4X', client_secret: 'ocs_5fQm0c2ZrT9aB1xYw8VnK3pLd7HsE4gJ6uRtY0oPqWe' };

function send(res: Response, answer: OAuthAnswer): void {
  res.status(answer.status).set(answer.headers).json(answer.body);
}

/** The endpoints of the authorization server; they answer in bare RFC form, not in the envelope. */
@ApiTag('OAuth 2.0')
@ApiExtraModels(OAuthTokenResponseView, OAuthIntrospectionView)
@Public()
@Controller()
export class OAuthServerController {
  constructor(
    private readonly server: AuthorizationServer,
    private readonly tokens: TokenAdministrationService,
    private readonly config: AppConfig,
  ) {}

  @Post('oauth/token')
  @AcceptsClientBasic()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'exchangeOAuthToken',
    summary: 'Token endpoint (RFC 6749)',
    description:
      'Grants `authorization_code` (with PKCE; codes live 60 seconds and are single-use), `client_credentials` ' +
      "(acting on the account that registered the client, never beyond the client's scopes) and `refresh_token` " +
      '(rotated; a used refresh token revokes its whole grant; a scope beyond the grant is `invalid_scope` and leaves ' +
      'the refresh token usable). Any other grant is `unsupported_grant_type`. Client secrets in the body or by HTTP ' +
      'Basic, id and secret form-encoded (RFC 6749 2.3.1). Answers carry `Cache-Control: no-store`.',
  })
  @ApiFormBody(
    {
      grant_type: { description: 'The grant', enum: ['authorization_code', 'client_credentials', 'refresh_token'] },
      code: { description: 'authorization_code: the code from the redirect' },
      redirect_uri: { description: 'authorization_code: the redirect URI of the authorization request' },
      code_verifier: { description: 'authorization_code: the PKCE verifier' },
      refresh_token: { description: 'refresh_token: the refresh token' },
      scope: { description: 'client_credentials and refresh_token: space-separated scopes, at most those allowed' },
      ...CLIENT_FIELDS,
    },
    ['grant_type'],
    { grant_type: 'client_credentials', scope: 'read:resources', ...EXAMPLE_CLIENT },
  )
  @ApiOAuthResponse('Tokens', { $ref: getSchemaPath(OAuthTokenResponseView) })
  @ApiOAuthErrors()
  async token(@Req() req: Request, @Res() res: Response): Promise<void> {
    send(res, await this.server.token(req));
  }

  @Post('oauth/revoke')
  @AcceptsClientBasic()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'revokeOAuthToken',
    summary: 'Revoke a token (RFC 7009)',
    description:
      'Revoking a refresh token revokes every token of its grant; revoking an access token, that token. An unknown token, ' +
      "or another client's, is answered 200 and left alone.",
  })
  @ApiFormBody(
    { token: { description: 'The token' }, token_type_hint: { description: 'Ignored: tokens name their own kind' }, ...CLIENT_FIELDS },
    ['token'],
    { token: 'ort_0cN5xW7bT1yK4pD9sH3jF6gA2eU8iO0nB5mq8Zr2LmV', ...EXAMPLE_CLIENT },
  )
  // RFC 7009 2.2: the answer carries nothing.
  @ApiOAuthResponse('Revoked (or never valid): an empty JSON object', { type: 'object', additionalProperties: false, maxProperties: 0 })
  @ApiOAuthErrors()
  async revoke(@Req() req: Request, @Res() res: Response): Promise<void> {
    send(res, await this.tokens.revoke(req));
  }

  @Post('oauth/introspect')
  @AcceptsClientBasic()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'introspectOAuthToken',
    summary: 'Introspect a token (RFC 7662)',
    description: "A client sees its own tokens only; any other token, expired or revoked, is `{ \"active\": false }`.",
  })
  @ApiFormBody(
    { token: { description: 'The token' }, token_type_hint: { description: 'Ignored' }, ...CLIENT_FIELDS },
    ['token'],
    { token: 'oat_5fQm0c2ZrT9aB1xYw8VnK3pLd7HsE4gJ6uRtY0oPqWe', ...EXAMPLE_CLIENT },
  )
  @ApiOAuthResponse('What the token is, or `{ "active": false }`', { $ref: getSchemaPath(OAuthIntrospectionView) })
  @ApiOAuthErrors()
  async introspect(@Req() req: Request, @Res() res: Response): Promise<void> {
    send(res, await this.tokens.introspect(req));
  }

  @Get('.well-known/oauth-authorization-server')
  @ApiOperation({
    operationId: 'getOAuthServerMetadata',
    summary: 'Authorization server metadata (RFC 8414)',
    description:
      "The issuer, and every endpoint's address, is the service's configured public URL (`PUBLIC_URL`), whatever " +
      'host the request named; the document is the same for every request, and may be cached for an hour.',
  })
  @ApiOkResponse({ type: AuthorizationServerMetadataView, description: 'The metadata', headers: responseHeaders('Cache-Control') })
  metadata(@Res() res: Response): void {
    // Safe to share in caches: it depends on configuration only, never on the request.
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json(authorizationServerMetadata(this.config.PUBLIC_URL));
  }
}
