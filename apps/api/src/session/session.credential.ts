import type { AppConfig } from '@app/config';
import type { CredentialDescriptor } from '../auth/credential';
import { sessionCookieName } from './session-cookie';
import { sessionCookieValue } from './session-reader';
import { sessionRevocationMark } from './session.store';

/**
 * The session cookie, named after how the service is served (`sessionCookieName`). Logout ends
 * the session in Redis and leaves its mark, so that a replica that remembers the session refuses
 * it too.
 */
export function sessionCredential(config: AppConfig): CredentialDescriptor {
  const cookieName = sessionCookieName(config);
  return {
    kind: 'session',
    userLoginAs: 'a session login',
    label: 'session',
    accountLabel: 'session',
    carriage: {
      isCarriedBy: (req) => sessionCookieValue(req, cookieName) !== undefined,
    },
    carriedAs: `a ${cookieName} session cookie`,
    askedForAs: 'the session cookie',
    refusal: () => 'The session has ended or is not valid. Log in again.',
    revocation: {
      marksOf: (auth) => [sessionRevocationMark(auth.credentialId)],
      message: 'The session has ended. Log in again with POST /v2/session/login.',
    },
  };
}
