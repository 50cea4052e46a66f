import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError, ConflictError } from '@app/common';
import { AppConfig } from '@app/config';
import { LoginCsrf } from '../../oauth/authorize/login-csrf.service';
import type { RenderedPage } from '../../platform/pages/page-layout';
import { hostCookieName, readCookie } from '../../session/session-cookie';
import { SessionService } from '../../session/session.service';
import { RegisterDto } from '../../users/dto/register.dto';
import { UsersService } from '../../users/users.service';
import { ConsoleSessions } from '../access/console-sessions';
import { expiredForm } from '../access/form-token';
import { checkAs, FormFields, textOf } from '../console-form';
import { CONSOLE_HOME, safeReturnPath } from '../console-paths';
import { signInPage } from './sign-in.page';
import { signUpPage } from './sign-up.page';

/** The cookie of the sign-in form's pre-session (`LoginCsrf`), `__Host-` prefixed over https. */
export const SIGN_IN_CSRF_COOKIE = 'rms_console_csrf';

/** What the controller sends: a page or a 303 redirect, and the cookies to set or clear. */
export type SignInStep = ({ kind: 'page'; page: RenderedPage } | { kind: 'redirect'; location: string }) & {
  /** The sign-in form's pre-session id for its cookie; null clears the cookie. */
  preSession?: string | null;
  sessionCookie?: string;
};

const SIGNED_OUT_NOTICE = 'You have signed out.';

/**
 * Signing up is the API's registration (`UsersService.create`, the DTO's checks and its 409 for a
 * taken email or username), then the same session login as signing in.
 *
 * Signing in to the console is the session login (`SessionService.login`, with its lockout after
 * failed attempts), from a form protected as the OAuth login form is: its token is bound to a
 * pre-session cookie of its own, so that the two forms open side by side do not spoil each other.
 */
@Injectable()
export class ConsoleSignInService {
  constructor(
    private readonly sessions: SessionService,
    private readonly consoleSessions: ConsoleSessions,
    private readonly loginCsrf: LoginCsrf,
    private readonly config: AppConfig,
    private readonly users: UsersService,
  ) {}

  /** `GET /console/sign-in`: the form, or straight on when a session is already there. */
  async start(req: Request): Promise<SignInStep> {
    const returnTo = safeReturnPath(req.query.next);
    if (await this.consoleSessions.signedIn(req)) return { kind: 'redirect', location: returnTo };
    const preSession = this.loginCsrf.start();
    const notice = req.query.signed_out === '1' ? SIGNED_OUT_NOTICE : undefined;
    return { kind: 'page', page: signInPage({ csrfToken: preSession.csrfToken, returnTo, notice }), preSession: preSession.id };
  }

  /** `POST /console/sign-in`: email and password, then on to the page asked for with a session. */
  async signIn(req: Request): Promise<SignInStep> {
    const form = req.body as FormFields;
    const csrfToken = textOf(form, 'csrf_token') ?? '';
    const preSessionId = readCookie(req.headers.cookie, hostCookieName(this.config, SIGN_IN_CSRF_COOKIE));
    if (!this.loginCsrf.verify(preSessionId, csrfToken)) throw expiredForm();
    const returnTo = safeReturnPath(textOf(form, 'next'));
    const email = textOf(form, 'email') ?? '';
    try {
      const started = await this.sessions.login(email, textOf(form, 'password') ?? '');
      return { kind: 'redirect', location: returnTo, sessionCookie: started.cookieValue, preSession: null };
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const problem = error.code === 'rate_limit_exceeded' ? error.message : 'The email or password is incorrect.';
      return { kind: 'page', page: signInPage({ csrfToken, returnTo, email, problem }, error.status) };
    }
  }

  /** `GET /console/sign-up`: the form, or the console when a session is already there. */
  async startSignUp(req: Request): Promise<SignInStep> {
    if (await this.consoleSessions.signedIn(req)) return { kind: 'redirect', location: CONSOLE_HOME };
    const preSession = this.loginCsrf.start();
    return { kind: 'page', page: signUpPage({ csrfToken: preSession.csrfToken, values: {}, problems: [] }), preSession: preSession.id };
  }

  /** `POST /console/sign-up`: a new account, then the console with a session; problems shown by field. */
  async signUp(req: Request): Promise<SignInStep> {
    const form = req.body as FormFields;
    const csrfToken = textOf(form, 'csrf_token') ?? '';
    const preSessionId = readCookie(req.headers.cookie, hostCookieName(this.config, SIGN_IN_CSRF_COOKIE));
    if (!this.loginCsrf.verify(preSessionId, csrfToken)) throw expiredForm();
    const values = { email: textOf(form, 'email')?.trim(), username: textOf(form, 'username')?.trim(), password: textOf(form, 'password') };
    const shown = { email: values.email, username: values.username };
    const checked = await checkAs(RegisterDto, values);
    if (!checked.valid) return { kind: 'page', page: signUpPage({ csrfToken, values: shown, problems: checked.problems }, 400) };
    try {
      await this.users.create(checked.value);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      return { kind: 'page', page: signUpPage({ csrfToken, values: shown, problems: error.details ?? [] }, 409) };
    }
    const started = await this.sessions.login(checked.value.email, checked.value.password);
    return { kind: 'redirect', location: CONSOLE_HOME, sessionCookie: started.cookieValue, preSession: null };
  }
}
