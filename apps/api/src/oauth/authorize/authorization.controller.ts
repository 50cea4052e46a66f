import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { Public } from '../../platform/decorators/public.decorator';
import { ApiTag } from '../../platform/openapi/api-tags';
import { hostCookieName, hostCookieOptions, setSessionCookie } from '../../session/session-cookie';
import { ApiFormBody, ApiHtmlResponse, ApiRedirectResponse } from '../server/oauth-server.openapi';
import { AuthorizationFlowService, AuthorizationStep, LOGIN_CSRF_COOKIE } from './authorization-flow.service';

const FLOW_FIELDS = {
  response_type: { description: '`code`: the authorization code flow is the only one' },
  client_id: { description: 'The client' },
  redirect_uri: { description: 'One of the redirect URIs the client registered, exactly' },
  scope: { description: "Space-separated scopes; the client's scopes when omitted" },
  state: { description: 'Echoed back to the client' },
  code_challenge: { description: 'PKCE challenge (the base64url SHA-256 of the verifier), required of every client' },
  code_challenge_method: { description: '`S256`, the only method; `plain` is refused' },
  csrf_token: { description: 'The token the page put in the form' },
};

/** The pages of the authorization endpoint: HTML for browsers, with no script. */
@ApiTag('OAuth 2.0')
@Public()
@Controller('oauth/authorize')
export class AuthorizationController {
  constructor(
    private readonly flow: AuthorizationFlowService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'startOAuthAuthorization',
    summary: 'Authorization endpoint (RFC 6749 4.1.1)',
    description:
      'A login page when the browser has no session, then a consent page naming the client and each scope. PKCE ' +
      '(`code_challenge` with `code_challenge_method=S256`) is required of every client, confidential ones too. Any bad ' +
      'parameter is an error page, never a redirect: nothing goes back to the client before the user has been shown ' +
      'the login or consent page (RFC 9700 4.11.2). Every answer sent back to the client carries `iss` (RFC 9207).',
  })
  @ApiQuery({ name: 'response_type', required: true, description: FLOW_FIELDS.response_type.description, schema: { type: 'string', enum: ['code'] } })
  @ApiQuery({ name: 'client_id', required: true, description: FLOW_FIELDS.client_id.description, schema: { type: 'string' } })
  @ApiQuery({ name: 'redirect_uri', required: false, description: FLOW_FIELDS.redirect_uri.description, schema: { type: 'string' } })
  @ApiQuery({ name: 'scope', required: false, description: FLOW_FIELDS.scope.description, schema: { type: 'string' } })
  @ApiQuery({ name: 'state', required: false, description: FLOW_FIELDS.state.description, schema: { type: 'string' } })
  @ApiQuery({ name: 'code_challenge', required: true, description: FLOW_FIELDS.code_challenge.description, schema: { type: 'string' } })
  @ApiQuery({ name: 'code_challenge_method', required: false, description: FLOW_FIELDS.code_challenge_method.description, schema: { type: 'string', enum: ['S256'] } })
  @ApiHtmlResponse(200, 'The login page, or the consent page when a session exists')
  @ApiHtmlResponse(400, 'Error page: unknown client, unregistered redirect URI or any other bad parameter')
  async start(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.send(res, await this.flow.start(req));
  }

  @Post('login')
  @ApiOperation({
    operationId: 'logInForOAuthAuthorization',
    summary: 'Log in from the authorization page',
    description: 'The login form of the authorization page posts here: it starts a session (as `POST /v2/session/login` does), then goes back to the consent page.',
  })
  @ApiFormBody({ ...FLOW_FIELDS, email: { description: 'Email' }, password: { description: 'Password' } }, ['client_id', 'csrf_token'])
  @ApiRedirectResponse(303, 'Logged in: on to the consent page; or, for a bad parameter, back to the client with `error`, `state` and `iss`')
  @ApiHtmlResponse(400, 'Error page: unknown client or unregistered redirect URI')
  @ApiHtmlResponse(401, 'The login page again: wrong email or password')
  @ApiHtmlResponse(403, 'Error page: the form token is missing or wrong')
  @ApiHtmlResponse(429, 'The login page again: too many failed logins')
  async logIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.send(res, await this.flow.logIn(req));
  }

  @Post()
  @ApiOperation({
    operationId: 'decideOAuthAuthorization',
    summary: 'Allow or deny from the consent page',
    description:
      'Allow sends the browser to the redirect URI with `code`, `state` and `iss`; Deny with `error=access_denied`, `state` and `iss`.',
  })
  @ApiFormBody({ ...FLOW_FIELDS, decision: { description: 'The button pressed', enum: ['allow', 'deny'] } }, ['client_id', 'csrf_token', 'decision'])
  @ApiRedirectResponse(303, 'Back to the client with the code, or with `error` (`access_denied` for Deny), `state` and `iss`')
  @ApiHtmlResponse(400, 'Error page: unknown client, unregistered redirect URI, no decision, or a bad parameter with no session')
  @ApiHtmlResponse(401, 'The login page: the session has ended')
  @ApiHtmlResponse(403, 'Error page: the form token is missing or wrong')
  async decide(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.send(res, await this.flow.decide(req));
  }

  private send(res: Response, step: AuthorizationStep): void {
    const loginCsrfCookie = hostCookieName(this.config, LOGIN_CSRF_COOKIE);
    if (step.loginPreSession) {
      res.cookie(loginCsrfCookie, step.loginPreSession, hostCookieOptions(this.config));
    } else if (step.loginPreSession === null) {
      res.clearCookie(loginCsrfCookie, hostCookieOptions(this.config));
    }
    if (step.sessionCookie) setSessionCookie(res, this.config, step.sessionCookie);
    if (step.kind === 'redirect') {
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, step.location);
      return;
    }
    res.status(step.page.status).set(step.page.headers).send(step.page.html);
  }
}
