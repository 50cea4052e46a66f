import { Injectable } from '@nestjs/common';
import { createHmac, hkdfSync } from 'node:crypto';
import { AppConfig } from '@app/config';
import { newOpaqueSecret, secretsEqual } from '../../auth/opaque-secret';

/** A login form's pre-session, which its cookie holds, and the CSRF token its form carries. */
export interface LoginPreSession {
  id: string;
  csrfToken: string;
}

/**
 * The CSRF token of the authorization login form, bound to a pre-session: the cookie holds a
 * random id, the form the id's HMAC under a key only the service has. Whoever can plant a cookie
 * (and fill in the form) still cannot make a pair the service accepts, as a plain matching cookie
 * and field could be made.
 */
@Injectable()
export class LoginCsrf {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    // A key of its own, so that no other value signed with JWT_SECRET passes as a form token.
    this.key = Buffer.from(hkdfSync('sha256', config.jwtSecret, '', 'rms oauth login csrf', 32));
  }

  start(): LoginPreSession {
    const id = newOpaqueSecret();
    return { id, csrfToken: this.tokenFor(id) };
  }

  /** Whether the form's token is the one the service issued for the cookie's pre-session. */
  verify(preSessionId: string | undefined, csrfToken: string | undefined): boolean {
    return !!preSessionId && !!csrfToken && secretsEqual(csrfToken, this.tokenFor(preSessionId));
  }

  private tokenFor(preSessionId: string): string {
    return createHmac('sha256', this.key).update(preSessionId, 'utf8').digest('base64url');
  }
}
