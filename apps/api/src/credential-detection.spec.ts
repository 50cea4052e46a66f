import { AuthenticationRequiredError, InvalidRequestError } from '@app/common';
import { AppConfig } from '@app/config';
import { API_KEY_CREDENTIAL } from './api-keys/api-key.credential';
import { detectCredential as detectAmong, refuseRemovedMethods } from './auth/credential-detector';
import type { CredentialCarrier, CredentialStrategy } from './auth/credential';
import type { RouteAccess } from './auth/route-access';
import { JWT_CREDENTIAL } from './auth/strategies/jwt.credential';
import { OAUTH_TOKEN_CREDENTIAL } from './oauth/credential/oauth-token.credential';
import { sessionCredential } from './session/session.credential';

/**
 * The application's four credentials, each as its own module describes it, in the order the
 * registry finds them. Detection reads only the descriptors: the strategies are never run here.
 */
const STRATEGIES = [JWT_CREDENTIAL, API_KEY_CREDENTIAL, sessionCredential(new AppConfig()), OAUTH_TOKEN_CREDENTIAL].map(
  (credential) => ({ credential }) as CredentialStrategy,
);
const ROUTE: RouteAccess = { isPublic: false, acceptsLegacyToken: false, acceptsClientBasic: false, userLoginOnly: false, scopeArea: null };
const detectCredential = (req: CredentialCarrier): string => detectAmong(req, ROUTE, STRATEGIES).credential.kind;

function request(headers: Record<string, string>, query: Record<string, string> = {}): CredentialCarrier {
  return { headers, query };
}

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfeCJ9.c2ln';
const KEY = 'sk_test_0123456789abcdefghijABCDEFGHIJ0123456789a';
const COOKIE = 'theme=dark; rms_session=ses_x.secret';
const OAUTH = 'oat_0123456789abcdefghijABCDEFGHIJ0123456789a';

const LOGIN_HINT = 'log in with POST /v2/auth/login and send Authorization: Bearer <access_token>';
const MESSAGES = {
  basic: `HTTP Basic authentication has been removed: ${LOGIN_HINT}, or send an API key in X-API-Key.`,
  oauth1: 'OAuth 1.0 has been removed: get an OAuth 2.0 access token from /oauth/token and send Authorization: Bearer <access_token>.',
  notBearer: `The Authorization header must be "Bearer <token>"; other forms are not supported: ${LOGIN_HINT}.`,
  apiKeyV1: 'First-generation API keys (api_v1_...) have been removed: create a key with POST /v2/api-keys and send it in X-API-Key.',
  apiKeyQuery: 'API keys in the api_key query parameter are disabled: send the key in the X-API-Key header.',
  legacyToken:
    'X-Auth-Token is accepted only by POST /v2/auth/migrate: exchange the legacy token there for a token pair and send Authorization: Bearer <access_token>.',
  apiKeyAsBearer: 'API keys are not bearer tokens: send the key in the X-API-Key header, without an Authorization header.',
};

describe('credential detection among the four credentials (docs/api.md#authentication)', () => {
  it.each([
    [{ authorization: `Bearer ${JWT}` }, 'jwt'],
    [{ authorization: `bearer ${JWT}` }, 'jwt'],
    [{ authorization: `Bearer ${OAUTH}` }, 'oauth'],
    [{ authorization: 'Bearer not-a-jwt' }, 'jwt'],
    [{ 'x-api-key': KEY }, 'api_key'],
    [{ cookie: COOKIE }, 'session'],
    [{ cookie: 'theme=dark', 'x-api-key': KEY }, 'api_key'],
  ])('names the one credential of %j', (headers, expected) => {
    expect(detectCredential(request(headers))).toBe(expected);
  });

  it.each([
    ['Basic', { authorization: 'Basic dXNlcjpwYXNz' }, MESSAGES.basic],
    ['OAuth 1.0', { authorization: 'OAuth oauth_consumer_key="k", oauth_signature="s"' }, MESSAGES.oauth1],
    ['a token without Bearer', { authorization: JWT }, MESSAGES.notBearer],
    ['another scheme', { authorization: `Token ${JWT}` }, MESSAGES.notBearer],
    ['Bearer without a token', { authorization: 'Bearer' }, MESSAGES.notBearer],
    ['a first-generation key', { 'x-api-key': 'api_v1_abcdef' }, MESSAGES.apiKeyV1],
    ['X-Auth-Token', { 'x-auth-token': 'legacy' }, MESSAGES.legacyToken],
  ])('refuses %s with 401 naming the replacement', (_name, headers, message) => {
    expect(() => detectCredential(request(headers))).toThrow(new AuthenticationRequiredError(message));
  });

  it.each([
    ['a test API key', `Bearer ${KEY}`, MESSAGES.apiKeyAsBearer],
    ['a live API key', `bearer sk_live_${KEY.slice('sk_test_'.length)}`, MESSAGES.apiKeyAsBearer],
    ['a first-generation key', 'Bearer api_v1_abcdef', MESSAGES.apiKeyV1],
  ])('refuses %s sent as a bearer token with 401 naming X-API-Key', (_name, authorization, message) => {
    expect(() => detectCredential(request({ authorization }))).toThrow(new AuthenticationRequiredError(message));
    expect(() => detectCredential(request({ authorization, 'x-api-key': KEY }))).toThrow(new AuthenticationRequiredError(message));
  });

  it('refuses the api_key query parameter, even beside a valid credential', () => {
    expect(() => detectCredential(request({ authorization: `Bearer ${JWT}` }, { api_key: KEY }))).toThrow(
      new AuthenticationRequiredError(MESSAGES.apiKeyQuery),
    );
  });

  it('refuses a removed method before counting credentials', () => {
    expect(() => detectCredential(request({ 'x-api-key': KEY, 'x-auth-token': 'legacy' }))).toThrow(AuthenticationRequiredError);
  });

  it('lets a route take Basic or X-Auth-Token as its own credential, and refuses the others there', () => {
    const basic = request({ authorization: 'Basic dXNlcjpwYXNz' });
    const legacy = request({ 'x-auth-token': 'legacy' });
    expect(() => refuseRemovedMethods(basic, { ...ROUTE, acceptsClientBasic: true }, STRATEGIES)).not.toThrow();
    expect(() => refuseRemovedMethods(legacy, { ...ROUTE, acceptsLegacyToken: true }, STRATEGIES)).not.toThrow();
    expect(() => refuseRemovedMethods(legacy, { ...ROUTE, acceptsClientBasic: true }, STRATEGIES)).toThrow(MESSAGES.legacyToken);
  });

  it.each([
    [{ authorization: `Bearer ${JWT}`, 'x-api-key': KEY }, 'an Authorization Bearer token and an X-API-Key header'],
    [{ authorization: `Bearer ${JWT}`, cookie: COOKIE }, 'an Authorization Bearer token and a rms_session session cookie'],
    [{ 'x-api-key': KEY, cookie: COOKIE }, 'an X-API-Key header and a rms_session session cookie'],
    [{ authorization: `Bearer ${OAUTH}`, 'x-api-key': KEY }, 'an X-API-Key header and an OAuth access token'],
  ])('refuses two credentials %j with invalid_request', (headers, named) => {
    expect(() => detectCredential(request(headers))).toThrow(InvalidRequestError);
    expect(() => detectCredential(request(headers))).toThrow(named);
  });

  it('asks for a credential when there is none, naming those a client sends', () => {
    expect(() => detectCredential(request({ cookie: 'theme=dark' }))).toThrow(
      new AuthenticationRequiredError('Authentication is required: send Authorization: Bearer <token>, an X-API-Key header or the session cookie.'),
    );
  });
});
