import { DiscoveryService } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import type { Strategy } from 'passport';
import type { AuthContext, CredentialKind } from '@app/common';
import { requestStateOf } from '../platform/request/request-state';
import type { RouteAccess } from './route-access';

/** The parts of a request that can carry a credential. */
export interface CredentialCarrier {
  headers: IncomingHttpHeaders;
  query: unknown;
}

/** What a credential's strategy proves; authentication adds the kind and the account's role and plan. */
export type ProvenCredential = Omit<AuthContext, 'role' | 'plan' | 'credential'>;

/**
 * Where requests carry a credential: an `Authorization: Bearer` token starting with `bearerPrefix`
 * (the longest matching prefix claims a token, so '' claims those no other prefix does), or
 * wherever `isCarriedBy` finds it.
 */
export type CredentialCarriage = { bearerPrefix: string } | { isCarriedBy(req: CredentialCarrier): boolean };

/** A removed `Authorization` scheme a credential took over: "HTTP Basic authentication", and how to send the credential instead. */
export interface SchemeReplacement {
  removed: string;
  instead: string;
}

/** The Redis keys whose existence revokes a caller's credential, and the 401 that says so. */
export interface CredentialRevocation {
  marksOf(auth: AuthContext): readonly string[];
  message: string;
}

/**
 * What the generic authentication code knows of one credential, declared by the credential's own
 * module: where it is carried, what messages call it, and how it is revoked. Authentication reads
 * only these; it names no header, prefix or key itself.
 */
export interface CredentialDescriptor {
  /** The kind of every AuthContext the credential proves. */
  readonly kind: CredentialKind;
  /**
   * Set for a user's own login, which may manage credentials, unlike a credential acting for the
   * user: how a refusal of such a credential points to this login ("a session login").
   */
  readonly userLoginAs?: string;
  /** Its name where a permission is refused: "An API key cannot call…", "This API key lacks the scope…". */
  readonly label: string;
  /** Its name where its account is gone: "The account of this token no longer exists." */
  readonly accountLabel: string;
  readonly carriage: CredentialCarriage;
  /** How the request carries it, for the 400 of a request with two credentials: "an X-API-Key header". */
  readonly carriedAs: string;
  /** How the 401 of a request without a credential asks for it; omitted when another's words cover it. */
  readonly askedForAs?: string;
  /** The 401 when the strategy proved no caller and raised no error of its own; `challenge` is its failure. */
  refusal(challenge: unknown): string;
  /**
   * `Authorization` schemes other than Bearer: `replaced`, by lowercase scheme, what it replaced
   * and what to do instead; `other`, when set, the 401 for every scheme no credential replaced.
   */
  readonly authorizationSchemes?: { replaced?: Readonly<Record<string, SchemeReplacement>>; other?: string };
  /** The 401 for a removed form of the credential the request sends, refused on every route; null when none. */
  removedFormIn?(req: CredentialCarrier, route: RouteAccess): string | null;
  /** The 401 when a bearer token is this credential, which does not go there; null when it is not. */
  misplacedAsBearer?(token: string): string | null;
  /** Absent for a credential revoked where it is verified (its own store), so that no mark is read. */
  readonly revocation?: CredentialRevocation;
}

/** A Passport strategy that reads and verifies one credential, with its descriptor. */
export interface CredentialStrategy extends Strategy {
  readonly credential: CredentialDescriptor;
}

/** Marks a CredentialStrategy provider; the registry finds it at start. */
export const AuthenticatesCredential = DiscoveryService.createDecorator();

/** `Authorization` as one string, when sent. */
export function authorizationHeader(req: CredentialCarrier): string | undefined {
  const value = req.headers.authorization;
  return (Array.isArray(value) ? value.join(', ') : value)?.trim();
}

const BEARER_SCHEME = /^Bearer\s+/i;
const WHITESPACE = /\s/;

/**
 * The token of an Authorization value `Bearer <token>`, or undefined. The scheme is matched
 * apart from the token: one expression that also matched the token case-insensitively took
 * three times as long over a JWT's few hundred characters.
 */
export function bearerTokenOf(authorization: string): string | undefined {
  const scheme = BEARER_SCHEME.exec(authorization);
  if (scheme === null) return undefined;
  const token = authorization.slice(scheme[0].length);
  return token.length > 0 && !WHITESPACE.test(token) ? token : undefined;
}

/**
 * The token of `Authorization: Bearer <token>`, when that is what the request sends: read once
 * per request (a JWT is a few hundred characters, and the detection, the refusal of other schemes
 * and the JWT strategy each ask).
 */
export function bearerToken(req: CredentialCarrier): string | undefined {
  const state = requestStateOf(req);
  if (state.bearerToken === undefined) {
    const authorization = authorizationHeader(req);
    state.bearerToken = (authorization === undefined ? undefined : bearerTokenOf(authorization)) ?? null;
  }
  return state.bearerToken ?? undefined;
}

/** "a, b or c" */
export function alternatives(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}
