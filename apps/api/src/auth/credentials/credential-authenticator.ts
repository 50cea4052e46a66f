import type { ExecutionContext } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import type { Observable } from 'rxjs';
import type { CredentialKind } from '@app/common';

/** The parts of a request that can carry a credential. */
export interface CredentialCarrier {
  headers: IncomingHttpHeaders;
  query: unknown;
}

/**
 * What every credential implements, in its own bounded context: whether a request carries it,
 * and authenticating the request with it, which sets `req.auth` through `AuthContextFactory`.
 * The authentication guard picks from the registry of these; auth itself knows none of them.
 */
export interface CredentialAuthenticator {
  readonly kind: CredentialKind;
  /** How the request carries this credential, in words for an error message, or null when it does not. */
  carriedBy(req: CredentialCarrier): string | null;
  canActivate(context: ExecutionContext): Promise<boolean> | boolean | Observable<boolean>;
}

/** Marks a provider as a credential authenticator; the registry finds it at start. */
export const AuthenticatesCredential = DiscoveryService.createDecorator<CredentialKind>();

/** `Authorization` as one string, when sent. */
export function authorizationHeader(req: CredentialCarrier): string | undefined {
  const value = req.headers.authorization;
  return (Array.isArray(value) ? value.join(', ') : value)?.trim();
}

/** The token of `Authorization: Bearer <token>`, when that is what the request sends. */
export function bearerToken(req: CredentialCarrier): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(authorizationHeader(req) ?? '');
  return match?.[1];
}
