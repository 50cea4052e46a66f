import { AuthenticationRequiredError, InvalidRequestError } from '@app/common';
import { alternatives, authorizationHeader, bearerToken, CredentialCarrier, CredentialStrategy } from './credential';
import type { RouteAccess } from './route-access';

/** What the 401 says for an Authorization scheme no credential speaks of. */
const UNKNOWN_SCHEME = 'The Authorization header must be "Bearer <token>".';

/**
 * Refuses the removed methods (401, naming the replacement), on every route, public ones
 * included: they never authenticate, whatever else is sent, except where a route takes one as
 * its own credential. Only `Authorization: Bearer` is accepted, and HTTP Basic where the route
 * authenticates clients with it; each credential words the schemes it replaced and refuses its
 * own removed forms (docs/api.md#removed-methods).
 */
export function refuseRemovedMethods(req: CredentialCarrier, route: RouteAccess, strategies: readonly CredentialStrategy[]): void {
  const authorization = authorizationHeader(req);
  if (authorization !== undefined && bearerToken(req) === undefined) {
    const scheme = authorization.split(/\s+/, 1)[0].toLowerCase();
    if (!(scheme === 'basic' && route.acceptsClientBasic)) throw new AuthenticationRequiredError(schemeRefusal(scheme, strategies));
  }
  for (const { credential } of strategies) {
    const removed = credential.removedFormIn?.(req, route);
    if (removed) throw new AuthenticationRequiredError(removed);
  }
}

/**
 * The 401 for a scheme other than Bearer: what it was and what replaced it, each credential that
 * took it over naming itself ("HTTP Basic authentication has been removed: …, or …").
 */
function schemeRefusal(scheme: string, strategies: readonly CredentialStrategy[]): string {
  const schemes = strategies.map(({ credential }) => credential.authorizationSchemes);
  const replacements = schemes.flatMap((known) => known?.replaced?.[scheme] ?? []);
  if (replacements.length > 0) return `${replacements[0].removed} has been removed: ${replacements.map(({ instead }) => instead).join(', or ')}.`;
  return schemes.map((known) => known?.other).find((message) => message !== undefined) ?? UNKNOWN_SCHEME;
}

/** Refuses a bearer token that is a credential which does not go there (401, naming where it belongs). */
function refuseMisplacedCredentials(token: string | undefined, strategies: readonly CredentialStrategy[]): void {
  if (token === undefined) return;
  for (const { credential } of strategies) {
    const misplaced = credential.misplacedAsBearer?.(token);
    if (misplaced) throw new AuthenticationRequiredError(misplaced);
  }
}

/** The strategy whose bearer prefix is the longest one the token starts with. */
function bearerClaimant(token: string | undefined, strategies: readonly CredentialStrategy[]): CredentialStrategy | undefined {
  if (token === undefined) return undefined;
  let claimant: CredentialStrategy | undefined;
  let claimed = -1;
  for (const strategy of strategies) {
    const { carriage } = strategy.credential;
    if ('bearerPrefix' in carriage && carriage.bearerPrefix.length > claimed && token.startsWith(carriage.bearerPrefix)) {
      claimant = strategy;
      claimed = carriage.bearerPrefix.length;
    }
  }
  return claimant;
}

/**
 * The strategy of the one credential a request carries, after refusing the removed methods,
 * credentials sent in the place of another, and requests with none (401) or more than one
 * (400 invalid_request).
 */
export function detectCredential(req: CredentialCarrier, route: RouteAccess, strategies: readonly CredentialStrategy[]): CredentialStrategy {
  refuseRemovedMethods(req, route, strategies);
  const token = bearerToken(req);
  refuseMisplacedCredentials(token, strategies);
  const bearer = bearerClaimant(token, strategies);
  const presented = strategies.filter((strategy) => {
    const { carriage } = strategy.credential;
    return 'bearerPrefix' in carriage ? strategy === bearer : carriage.isCarriedBy(req);
  });
  if (presented.length > 1) {
    throw new InvalidRequestError(
      `Send exactly one credential; this request carries ${presented.map(({ credential }) => credential.carriedAs).join(' and ')}.`,
    );
  }
  if (presented.length === 0) {
    const askedFor = strategies.flatMap(({ credential }) => (credential.askedForAs === undefined ? [] : [credential.askedForAs]));
    throw new AuthenticationRequiredError(`Authentication is required: send ${alternatives(askedFor)}.`);
  }
  return presented[0];
}
