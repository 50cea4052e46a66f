import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '@app/common';
import { AppConfig } from '@app/config';
import { secretsEqual } from '../../auth/opaque-secret';
import { hostCookieName, readCookie } from '../../session/session-cookie';
import { SessionReader } from '../../session/session-reader';
import { SessionService } from '../../session/session.service';
import type { StoredSession } from '../../session/session.store';
import { AuthorizationServer } from '../server/authorization-server';
import {
  AuthorizationRequestInspector,
  errorRedirect,
  InvalidAuthorizationRequest,
  UntrustedAuthorizationRequest,
  ValidAuthorizationRequest,
} from './authorization-request';
import { LoginCsrf } from './login-csrf.service';
import { consentPage, CONSENT_FORM_PATH, errorPage, loginPage } from './pages/authorization-pages';
import type { RenderedPage } from '../../platform/pages/page-layout';

/** The cookie of the login form's pre-session (`LoginCsrf`), `__Host-` prefixed over https. */
export const LOGIN_CSRF_COOKIE = 'rms_oauth_csrf';

/** What the controller sends: a page or a 303 redirect, and the cookies to set or clear. */
export type AuthorizationStep = ({ kind: 'page'; page: RenderedPage } | { kind: 'redirect'; location: string }) & {
  /** The login form's pre-session id for its cookie; null clears the cookie. */
  loginPreSession?: string | null;
  sessionCookie?: string;
};

type FormFields = Record<string, unknown>;

const field = (form: FormFields, name: string): string | undefined => {
  const value = form[name];
  return typeof value === 'string' ? value : undefined;
};

const EXPIRED_FORM =
  'This form has expired or did not come from this service (its security token is missing or wrong). Start again from the application.';

/**
 * The authorization code flow as a browser walks it: the request checked, a login page when
 * there is no session, a consent page naming the client and its scopes, then the decision.
 * Nothing goes back to the client before a form of those pages has come back with its token.
 */
@Injectable()
export class AuthorizationFlowService {
  constructor(
    private readonly inspector: AuthorizationRequestInspector,
    private readonly server: AuthorizationServer,
    private readonly sessions: SessionService,
    private readonly sessionReader: SessionReader,
    private readonly loginCsrf: LoginCsrf,
    private readonly config: AppConfig,
  ) {}

  /** `GET /oauth/authorize`: a login or consent page, or an error page for any bad parameter. */
  async start(req: Request): Promise<AuthorizationStep> {
    const inspected = await this.inspector.inspect(req.query);
    if (inspected.outcome !== 'valid') return this.errorPage(inspected);
    const session = await this.sessionReader.current(req);
    return session ? this.consent(inspected, session) : this.login(inspected);
  }

  /** `POST /oauth/authorize/login`: email and password, then back to the request with a session. */
  async logIn(req: Request): Promise<AuthorizationStep> {
    const form = req.body as FormFields;
    const inspected = await this.inspector.inspect(form);
    if (inspected.outcome === 'error_page') return this.errorPage(inspected);
    const csrfToken = field(form, 'csrf_token') ?? '';
    const preSessionId = readCookie(req.headers.cookie, hostCookieName(this.config, LOGIN_CSRF_COOKIE));
    if (!this.loginCsrf.verify(preSessionId, csrfToken)) return { kind: 'page', page: errorPage(403, EXPIRED_FORM) };
    if (inspected.outcome === 'invalid') return this.errorToClient(inspected);
    const email = field(form, 'email') ?? '';
    try {
      const started = await this.sessions.login(email, field(form, 'password') ?? '');
      const location = `${CONSENT_FORM_PATH}?${new URLSearchParams(inspected.params).toString()}`;
      return { kind: 'redirect', location, sessionCookie: started.cookieValue, loginPreSession: null };
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const problem = error.code === 'rate_limit_exceeded' ? error.message : 'The email or password is incorrect.';
      return {
        kind: 'page',
        page: loginPage({ clientName: inspected.client.name, params: inspected.params, csrfToken, email, problem }, error.status),
      };
    }
  }

  /** `POST /oauth/authorize`: Allow issues a code, Deny sends `access_denied`; both back to the client. */
  async decide(req: Request): Promise<AuthorizationStep> {
    const form = req.body as FormFields;
    const inspected = await this.inspector.inspect(form);
    if (inspected.outcome === 'error_page') return this.errorPage(inspected);
    const session = await this.sessionReader.current(req);
    if (!session) return inspected.outcome === 'valid' ? this.login(inspected, 401) : this.errorPage(inspected);
    const sent = field(form, 'csrf_token');
    if (!sent || !secretsEqual(sent, session.csrfToken)) return { kind: 'page', page: errorPage(403, EXPIRED_FORM) };
    if (inspected.outcome === 'invalid') return this.errorToClient(inspected);
    const decision = field(form, 'decision');
    if (decision === 'deny') {
      return this.toClient(errorRedirect(inspected.redirectUri, 'access_denied', 'The user denied the request.', inspected.params.state));
    }
    if (decision !== 'allow') return { kind: 'page', page: errorPage(400, 'Choose Allow or Deny.') };
    return this.toClient(await this.server.issueCode(req, inspected.params, session.userId));
  }

  private errorPage(inspected: UntrustedAuthorizationRequest | InvalidAuthorizationRequest): AuthorizationStep {
    const message =
      inspected.outcome === 'error_page' ? inspected.message : `The application's request is not valid (${inspected.error}): ${inspected.description}`;
    return { kind: 'page', page: errorPage(400, message) };
  }

  private errorToClient(inspected: InvalidAuthorizationRequest): AuthorizationStep {
    return this.toClient(errorRedirect(inspected.redirectUri, inspected.error, inspected.description, inspected.state));
  }

  /** An authorization response: it names the issuer (RFC 9207), so a client of several servers knows which one answered. */
  private toClient(location: string): AuthorizationStep {
    const url = new URL(location);
    url.searchParams.set('iss', this.config.PUBLIC_URL);
    return { kind: 'redirect', location: url.toString() };
  }

  private login(inspected: ValidAuthorizationRequest, status = 200): AuthorizationStep {
    const preSession = this.loginCsrf.start();
    return {
      kind: 'page',
      page: loginPage({ clientName: inspected.client.name, params: inspected.params, csrfToken: preSession.csrfToken }, status),
      loginPreSession: preSession.id,
    };
  }

  private consent(inspected: ValidAuthorizationRequest, session: StoredSession): AuthorizationStep {
    return {
      kind: 'page',
      page: consentPage({
        clientName: inspected.client.name,
        redirectOrigin: new URL(inspected.redirectUri).origin,
        scopes: inspected.scopes,
        params: inspected.params,
        csrfToken: session.csrfToken,
      }),
    };
  }
}
