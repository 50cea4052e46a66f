import { AuthenticationRequiredError, CredentialKind, InvalidRequestError } from '@app/common';
import { detectCredential, refuseRemovedMethods } from './credential-detector';
import type { CredentialCarrier, CredentialDescriptor, CredentialStrategy } from './credential';
import type { RouteAccess } from './route-access';

/** A credential carried in an `X-<kind>` header, unless described otherwise. */
function described(kind: CredentialKind, descriptor: Partial<CredentialDescriptor> = {}): CredentialStrategy {
  const credential: CredentialDescriptor = {
    kind,
    label: kind,
    accountLabel: kind,
    carriage: { isCarriedBy: (req) => req.headers[`x-${kind}`] !== undefined },
    carriedAs: `an X-${kind} header`,
    refusal: () => `no ${kind}`,
    ...descriptor,
  };
  return { credential } as CredentialStrategy;
}

const ROUTE: RouteAccess = { isPublic: false, acceptsLegacyToken: false, acceptsClientBasic: false, userLoginOnly: false, scopeArea: null };
const request = (headers: Record<string, string>): CredentialCarrier => ({ headers, query: {} });

describe('detectCredential', () => {
  const anyBearer = described('jwt', { carriage: { bearerPrefix: '' }, carriedAs: 'a bearer token', askedForAs: 'a bearer token' });
  const prefixed = described('oauth', { carriage: { bearerPrefix: 'tok_' }, carriedAs: 'a prefixed token' });
  const header = described('api_key', { askedForAs: 'an X-api_key header' });
  const strategies = [anyBearer, header, prefixed];
  const kindOf = (headers: Record<string, string>): CredentialKind => detectCredential(request(headers), ROUTE, strategies).credential.kind;

  it('gives a bearer token to the credential with the longest prefix it starts with', () => {
    expect(kindOf({ authorization: 'Bearer tok_x' })).toBe('oauth');
    expect(kindOf({ authorization: 'bearer other' })).toBe('jwt');
    expect(kindOf({ 'x-api_key': 'k' })).toBe('api_key');
  });

  it('refuses two credentials with 400, naming them in the order of the registry', () => {
    expect(() => kindOf({ authorization: 'Bearer tok_x', 'x-api_key': 'k' })).toThrow(
      new InvalidRequestError('Send exactly one credential; this request carries an X-api_key header and a prefixed token.'),
    );
  });

  it('asks for the credentials that say how, when there is none', () => {
    expect(() => kindOf({})).toThrow(new AuthenticationRequiredError('Authentication is required: send a bearer token or an X-api_key header.'));
  });

  it('refuses a bearer token that a credential says does not go there', () => {
    const misplacing = described('session', { misplacedAsBearer: (token) => (token.startsWith('sk_') ? 'keys go elsewhere' : null) });
    expect(() => detectCredential(request({ authorization: 'Bearer sk_1' }), ROUTE, [anyBearer, misplacing])).toThrow(
      new AuthenticationRequiredError('keys go elsewhere'),
    );
  });
});

describe('refuseRemovedMethods', () => {
  const replacing = (kind: CredentialKind, instead: string, other?: string): CredentialStrategy =>
    described(kind, { authorizationSchemes: { replaced: { basic: { removed: 'HTTP Basic authentication', instead } }, other } });

  it('words a replaced scheme by every credential that replaced it, in registry order', () => {
    const strategies = [replacing('jwt', 'log in'), replacing('api_key', 'send a key')];
    expect(() => refuseRemovedMethods(request({ authorization: 'Basic x' }), ROUTE, strategies)).toThrow(
      new AuthenticationRequiredError('HTTP Basic authentication has been removed: log in, or send a key.'),
    );
  });

  it('answers any other scheme as a credential words it, or plainly', () => {
    expect(() => refuseRemovedMethods(request({ authorization: 'Digest x' }), ROUTE, [replacing('jwt', 'log in', 'Use Bearer.')])).toThrow(
      new AuthenticationRequiredError('Use Bearer.'),
    );
    expect(() => refuseRemovedMethods(request({ authorization: 'Digest x' }), ROUTE, [])).toThrow(
      new AuthenticationRequiredError('The Authorization header must be "Bearer <token>".'),
    );
  });

  it('lets Basic through where the route authenticates clients with it', () => {
    expect(() => refuseRemovedMethods(request({ authorization: 'Basic x' }), { ...ROUTE, acceptsClientBasic: true }, [replacing('jwt', 'log in')])).not.toThrow();
  });

  it("refuses each credential's removed forms, as it judges them for the route", () => {
    const legacy = described('jwt', { removedFormIn: (req, route) => (req.headers['x-old'] !== undefined && !route.acceptsLegacyToken ? 'old is gone' : null) });
    const old = request({ 'x-old': '1' });
    expect(() => refuseRemovedMethods(old, ROUTE, [legacy])).toThrow(new AuthenticationRequiredError('old is gone'));
    expect(() => refuseRemovedMethods(old, { ...ROUTE, acceptsLegacyToken: true }, [legacy])).not.toThrow();
  });
});
