import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-custom';
import { ALL_SCOPES, AuthenticationRequiredError, InsufficientPermissionsError } from '@app/common';
import { AppConfig } from '@app/config';
import { AuthenticatesCredential, CredentialDescriptor, CredentialStrategy, ProvenCredential } from '../auth/credential';
import { secretsEqual } from '../auth/opaque-secret';
import { sessionCredential } from './session.credential';
import { SessionReader } from './session-reader';

const CSRF_HEADER = 'x-csrf-token';

/** Methods that change state: under a cookie they need the CSRF token, since browsers send cookies cross-site. */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The session cookie: a live server-side session, plus `X-CSRF-Token` on unsafe methods. */
@Injectable()
@AuthenticatesCredential()
export class SessionStrategy extends PassportStrategy(Strategy) implements CredentialStrategy {
  readonly credential: CredentialDescriptor;

  constructor(
    private readonly sessions: SessionReader,
    config: AppConfig,
  ) {
    super();
    this.credential = sessionCredential(config);
  }

  async validate(req: Request): Promise<ProvenCredential> {
    const session = await this.sessions.currentRemembered(req);
    if (!session) {
      throw new AuthenticationRequiredError('The session has ended or is not valid. Log in again with POST /v2/session/login.');
    }
    if (UNSAFE_METHODS.has(req.method)) {
      const sent = req.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !secretsEqual(sent, session.csrfToken)) {
        throw new InsufficientPermissionsError(
          'CSRF check failed: a POST, PUT, PATCH or DELETE made with the session cookie needs the header X-CSRF-Token set to the csrf_token of the login.',
        );
      }
    }
    return { userId: session.userId, scopes: ALL_SCOPES, credentialId: session.id };
  }
}
