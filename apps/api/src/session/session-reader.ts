import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import type { CredentialCarrier } from '../auth/credential';
import { requestStateOf } from '../platform/request/request-state';
import { readCookie, sessionCookieName } from './session-cookie';
import { SessionStore, StoredSession } from './session.store';

/** The session cookie's value in a request (under `cookieName`), or undefined when it carries none. */
export function sessionCookieValue(req: CredentialCarrier, cookieName: string): string | undefined {
  const cookies = req.headers.cookie;
  return readCookie(Array.isArray(cookies) ? cookies.join('; ') : cookies, cookieName);
}

/**
 * The one reader of the session cookie, for everything a session signs in: the API's session
 * credential, the console and the OAuth authorization pages. Only the session routes and the
 * sign-in pages that start or end a session write the cookie.
 */
@Injectable()
export class SessionReader {
  private readonly cookieName: string;

  constructor(
    private readonly store: SessionStore,
    config: AppConfig,
  ) {
    this.cookieName = sessionCookieName(config);
  }

  /**
   * The live session the request's cookie names, read from Redis (a session ended anywhere is gone
   * at once), once per request whoever asks: kept in the request's state.
   */
  current(req: CredentialCarrier & IncomingMessage): Promise<StoredSession | null> {
    const state = requestStateOf(req);
    return (state.session ??= this.read(req));
  }

  /**
   * As `current`, but answered from memory when this process read the session in the last
   * minute (`SessionStore.findRemembered`): for the API, whose request pipeline checks the
   * session's revocation mark in Redis later in the same request.
   */
  async currentRemembered(req: CredentialCarrier): Promise<StoredSession | null> {
    const cookie = sessionCookieValue(req, this.cookieName);
    return cookie ? this.store.findRemembered(cookie) : null;
  }

  private async read(req: CredentialCarrier): Promise<StoredSession | null> {
    const cookie = sessionCookieValue(req, this.cookieName);
    return cookie ? this.store.find(cookie) : null;
  }
}
