import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppConfig } from '@app/config';
import { Public } from '../../common/decorators/public.decorator';
import { SESSION_COOKIE, sessionCookieOptions } from '../../session/session-cookie';
import { ApiFormBody, ApiHtmlResponse, ApiRedirectResponse } from '../server/oauth-server.openapi';
import { AuthorizationFlowService, AuthorizationStep, LOGIN_CSRF_COOKIE } from './authorization-flow.service';

const FLOW_FIELDS = {
  response_type: { description: 'code' },
  client_id: { description: 'The client' },
  redirect_uri: { description: 'One of the redirect URIs the client registered, exactly' },
  scope: { description: "Space-separated scopes; the client's scopes when omitted" },
  state: { description: 'Echoed back to the client' },
  code_challenge: { description: 'PKCE challenge, required of public clients' },
  code_challenge_method: { description: 'S256' },
  csrf_token: { description: 'The token the page put in the form' },
};

/** The pages of the authorization endpoint: HTML for browsers, with no script. */
@ApiTags('OAuth 2.0')
@Public()
@Controller('oauth/authorize')
export class AuthorizationController {
  constructor(
    private readonly flow: AuthorizationFlowService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Authorization endpoint (RFC 6749 4.1.1)',
    description:
      'A login page when the browser has no session, then a consent page naming the client and each scope. An unknown ' +
      'client or a redirect URI not registered exactly is an error page, never a redirect; any other bad parameter ' +
      'is sent back to the redirect URI as `error`, with `state`.',
  })
  @ApiQuery({ name: 'response_type', required: true, schema: { type: 'string', enum: ['code'] } })
  @ApiQuery({ name: 'client_id', required: true, schema: { type: 'string' } })
  @ApiQuery({ name: 'redirect_uri', required: false, schema: { type: 'string' } })
  @ApiQuery({ name: 'scope', required: false, schema: { type: 'string' } })
  @ApiQuery({ name: 'state', required: false, schema: { type: 'string' } })
  @ApiQuery({ name: 'code_challenge', required: false, schema: { type: 'string' } })
  @ApiQuery({ name: 'code_challenge_method', required: false, schema: { type: 'string', enum: ['S256'] } })
  @ApiHtmlResponse(200, 'The login page, or the consent page when a session exists')
  @ApiRedirectResponse(302, 'Back to the client with `error` and `state`')
  @ApiHtmlResponse(400, 'Error page: unknown client or unregistered redirect URI')
  async start(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.send(res, await this.flow.start(req));
  }

  @Post('login')
  @ApiOperation({ summary: 'Log in from the authorization page', description: 'Starts a session, then goes back to the consent page.' })
  @ApiFormBody({ ...FLOW_FIELDS, email: { description: 'Email' }, password: { description: 'Password' } }, ['client_id', 'csrf_token'])
  @ApiRedirectResponse(303, 'Logged in: on to the consent page')
  @ApiRedirectResponse(302, 'Back to the client with `error` and `state`')
  @ApiHtmlResponse(400, 'Error page: unknown client or unregistered redirect URI')
  @ApiHtmlResponse(401, 'The login page again: wrong email or password')
  @ApiHtmlResponse(403, 'Error page: the form token is missing or wrong')
  @ApiHtmlResponse(429, 'The login page again: too many failed logins')
  async logIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.send(res, await this.flow.logIn(req));
  }

  @Post()
  @ApiOperation({
    summary: 'Allow or deny from the consent page',
    description: 'Allow sends the browser to the redirect URI with `code` and `state`; Deny with `error=access_denied` and `state`.',
  })
  @ApiFormBody({ ...FLOW_FIELDS, decision: { description: 'The button pressed', enum: ['allow', 'deny'] } }, ['client_id', 'csrf_token', 'decision'])
  @ApiRedirectResponse(303, 'Back to the client with the code, or with `error=access_denied`')
  @ApiRedirectResponse(302, 'Back to the client with `error` and `state`')
  @ApiHtmlResponse(400, 'Error page: unknown client, unregistered redirect URI or no decision')
  @ApiHtmlResponse(401, 'The login page: the session has ended')
  @ApiHtmlResponse(403, 'Error page: the form token is missing or wrong')
  async decide(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.send(res, await this.flow.decide(req));
  }

  private send(res: Response, step: AuthorizationStep): void {
    const secure = this.config.NODE_ENV !== 'development';
    if (step.loginCsrfToken) {
      res.cookie(LOGIN_CSRF_COOKIE, step.loginCsrfToken, { httpOnly: true, sameSite: 'lax', secure, path: '/oauth/authorize' });
    } else if (step.loginCsrfToken === null) {
      res.clearCookie(LOGIN_CSRF_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/oauth/authorize' });
    }
    if (step.sessionCookie) res.cookie(SESSION_COOKIE, step.sessionCookie, sessionCookieOptions(this.config));
    if (step.kind === 'redirect') {
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(step.status, step.location);
      return;
    }
    res.status(step.page.status).set(step.page.headers).send(step.page.html);
  }
}
