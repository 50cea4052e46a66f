import { Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiCookieAuth, ApiHeader, ApiNoContentResponse, ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthContext } from '@app/common';
import { AppConfig } from '@app/config';
import { LoginDto } from '../auth/dto/login.dto';
import { Auth } from '../platform/decorators/auth.decorator';
import { Public } from '../platform/decorators/public.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { ApiDataResponse, ApiErrors } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { responseHeaders } from '../platform/openapi/http-headers';
import { ValidBody } from '../platform/validation/validated-parameters';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from './session-cookie';
import { SessionLoginView } from './session-login.view';
import { SessionService } from './session.service';

@ApiTag('Session')
@Controller('session')
export class SessionController {
  constructor(
    private readonly sessions: SessionService,
    private readonly config: AppConfig,
  ) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'startSession',
    summary: 'Log in with a session cookie',
    description: `Sets the \`${SESSION_COOKIE}\` cookie (\`__Host-${SESSION_COOKIE}\` when the service is served over https; HttpOnly, SameSite=Lax, Secure outside development), valid for 24 hours. Unsafe methods made with it need \`X-CSRF-Token: <csrf_token>\`.`,
  })
  @ApiDataResponse(SessionLoginView, 200, 'Logged in: the session cookie is set', ['Set-Cookie'])
  @ApiErrors(400, 401, 429)
  async login(@ValidBody() body: LoginDto, @Res({ passthrough: true }) res: Response): Promise<SessionLoginView> {
    const started = await this.sessions.login(body.email, body.password);
    setSessionCookie(res, this.config, started.cookieValue);
    return started.view;
  }

  @Post('logout')
  @ScopeArea(null)
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Logged out: the cookie is cleared; no body', headers: responseHeaders('Set-Cookie') })
  @ApiCookieAuth()
  @ApiHeader({ name: 'X-CSRF-Token', required: true, description: 'The `csrf_token` of the login.', schema: { type: 'string', minLength: 1 } })
  @ApiOperation({
    operationId: 'endSession',
    summary: 'End the session',
    description: 'The session is deleted on the server, refused on every replica at once, and its cookie cleared.',
  })
  @ApiErrors(400, 401, 403)
  async logout(@Auth() auth: AuthContext, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.sessions.logout(auth);
    clearSessionCookie(res, this.config);
  }
}
