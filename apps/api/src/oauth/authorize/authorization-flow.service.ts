import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '@app/common';
import { newOpaqueSecret, secretsEqual } from '../../auth/opaque-secret';
import { readCookie, SESSION_COOKIE } from '../../session/session-cookie';
import { SessionService } from '../../session/session.service';
import { SessionStore, StoredSession } from '../../session/session.store';
import { AuthorizationServer } from '../server/authorization-server';
import { AuthorizationRequestInspector, errorRedirect, ValidAuthorizationRequest } from './authorization-request';
import { consentPage, CONSENT_FORM_PATH, errorPage, loginPage } from './pages/authorization-pages';
import type { RenderedPage } from './pages/page-layout';

/** The login form's CSRF token, double-submitted: in this cookie and in the form. */
export const LOGIN_CSRF_COOKIE = 'rms_oauth_csrf';

/** What the controller sends: a page or a redirect, and the cookies to set or clear. */
export type AuthorizationStep = (
  | { kind: 'page'; page: RenderedPage }
  | { kind: 'redirect'; status: 302 | 303; location: string }
) & {
  loginCsrfToken?: string | null;
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
 */
@Injectable()
export class AuthorizationFlowService {
  constructor(
    private readonly inspector: AuthorizationRequestInspector,
    private readonly server: AuthorizationServer,
    private readonly sessions: SessionService,
    private readonly sessionStore: SessionStore,
  ) {}

  /** `GET /oauth/authorize`. */
  async start(req: Request): Promise<AuthorizationStep> {
    const inspected = await this.inspector.inspect(req.query);
    if (inspected.outcome !== 'valid') return this.refusal(inspected);
    const session = await this.session(req);
    return session ? this.consent(inspected, session) : this.login(inspected);
  }

  /** `POST /oauth/authorize/login`: email and password, then back to the request with a session. */
  async logIn(req: Request): Promise<AuthorizationStep> {
    const form = req.body as FormFields;
    const inspected = await this.inspector.inspect(form);
    if (inspected.outcome !== 'valid') return this.refusal(inspected);
    const expected = readCookie(req.headers.cookie, LOGIN_CSRF_COOKIE);
    const sent = field(form, 'csrf_token');
    if (!expected || !sent || !secretsEqual(sent, expected)) return { kind: 'page', page: errorPage(403, EXPIRED_FORM) };
    const email = field(form, 'email') ?? '';
    try {
      const started = await this.sessions.login(email, field(form, 'password') ?? '');
      const location = `${CONSENT_FORM_PATH}?${new URLSearchParams(inspected.params).toString()}`;
      return { kind: 'redirect', status: 303, location, sessionCookie: started.cookieValue, loginCsrfToken: null };
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const problem = error.code === 'rate_limit_exceeded' ? error.message : 'The email or password is incorrect.';
      return {
        kind: 'page',
        page: loginPage({ clientName: inspected.client.name, params: inspected.params, csrfToken: expected, email, problem }, error.status),
      };
    }
  }

  /** `POST /oauth/authorize`: Allow issues a code, Deny sends `access_denied`; both back to the client. */
  async decide(req: Request): Promise<AuthorizationStep> {
    const form = req.body as FormFields;
    const inspected = await this.inspector.inspect(form);
    if (inspected.outcome !== 'valid') return this.refusal(inspected);
    const session = await this.session(req);
    if (!session) return this.login(inspected, 401);
    const sent = field(form, 'csrf_token');
    if (!sent || !secretsEqual(sent, session.csrfToken)) return { kind: 'page', page: errorPage(403, EXPIRED_FORM) };
    const decision = field(form, 'decision');
    if (decision === 'deny') {
      const location = errorRedirect(inspected.redirectUri, 'access_denied', 'The user denied the request.', inspected.params.state);
      return { kind: 'redirect', status: 303, location };
    }
    if (decision !== 'allow') return { kind: 'page', page: errorPage(400, 'Choose Allow or Deny.') };
    return { kind: 'redirect', status: 303, location: await this.server.issueCode(req, inspected.params, session.userId) };
  }

  private refusal(inspected: { outcome: 'error_page'; message: string } | { outcome: 'redirect'; location: string }): AuthorizationStep {
    return inspected.outcome === 'redirect'
      ? { kind: 'redirect', status: 302, location: inspected.location }
      : { kind: 'page', page: errorPage(400, inspected.message) };
  }

  private login(inspected: ValidAuthorizationRequest, status = 200): AuthorizationStep {
    const csrfToken = newOpaqueSecret();
    return {
      kind: 'page',
      page: loginPage({ clientName: inspected.client.name, params: inspected.params, csrfToken }, status),
      loginCsrfToken: csrfToken,
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

  private async session(req: Request): Promise<StoredSession | null> {
    const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
    return cookie ? this.sessionStore.find(cookie) : null;
  }
}
