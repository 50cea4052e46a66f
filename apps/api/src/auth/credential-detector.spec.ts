import { AuthenticationRequiredError, InvalidRequestError } from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeyAuthGuard } from '../api-keys/api-key-auth.guard';
import { OAuthTokenAuthGuard } from '../oauth/credential/oauth-token-auth.guard';
import { SessionAuthGuard } from '../session/session-auth.guard';
import { detectCredential as detectAmong, MISPLACED_CREDENTIAL_MESSAGES, REMOVED_METHOD_MESSAGES } from './credential-detector';
import { CredentialCarrier } from './credentials/credential-authenticator';
import { JwtAuthGuard } from './guards/jwt-auth.guard';

/** The application's four credentials, as the registry finds them. */
/** Detection reads only the request's headers: the strategies are never run here. */
const unusedStrategy = <T>(): T => ({}) as T;
const AUTHENTICATORS = [
  new JwtAuthGuard(unusedStrategy()),
  new ApiKeyAuthGuard(unusedStrategy()),
  new SessionAuthGuard(unusedStrategy(), new AppConfig()),
  new OAuthTokenAuthGuard(unusedStrategy()),
];
const detectCredential = (req: CredentialCarrier): string => detectAmong(req, AUTHENTICATORS).kind;

function request(headers: Record<string, string>, query: Record<string, string> = {}): CredentialCarrier {
  return { headers, query };
}

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfeCJ9.c2ln';
const KEY = 'sk_test_0123456789abcdefghijABCDEFGHIJ0123456789a';
const COOKIE = 'theme=dark; rms_session=ses_x.secret';
const OAUTH = 'oat_0123456789abcdefghijABCDEFGHIJ0123456789a';

describe('detectCredential (decisions 9)', () => {
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
    ['Basic', { authorization: 'Basic dXNlcjpwYXNz' }, REMOVED_METHOD_MESSAGES.basic],
    ['OAuth 1.0', { authorization: 'OAuth oauth_consumer_key="k", oauth_signature="s"' }, REMOVED_METHOD_MESSAGES.oauth1],
    ['a token without Bearer', { authorization: JWT }, REMOVED_METHOD_MESSAGES.notBearer],
    ['another scheme', { authorization: `Token ${JWT}` }, REMOVED_METHOD_MESSAGES.notBearer],
    ['Bearer without a token', { authorization: 'Bearer' }, REMOVED_METHOD_MESSAGES.notBearer],
    ['a first-generation key', { 'x-api-key': 'api_v1_abcdef' }, REMOVED_METHOD_MESSAGES.apiKeyV1],
    ['X-Auth-Token', { 'x-auth-token': 'legacy' }, REMOVED_METHOD_MESSAGES.legacyToken],
  ])('refuses %s with 401 naming the replacement', (_name, headers, message) => {
    expect(() => detectCredential(request(headers))).toThrow(new AuthenticationRequiredError(message));
  });

  it.each([
    ['a test API key', `Bearer ${KEY}`, MISPLACED_CREDENTIAL_MESSAGES.apiKeyAsBearer],
    ['a live API key', `bearer sk_live_${KEY.slice('sk_test_'.length)}`, MISPLACED_CREDENTIAL_MESSAGES.apiKeyAsBearer],
    ['a first-generation key', 'Bearer api_v1_abcdef', REMOVED_METHOD_MESSAGES.apiKeyV1],
  ])('refuses %s sent as a bearer token with 401 naming X-API-Key', (_name, authorization, message) => {
    expect(() => detectCredential(request({ authorization }))).toThrow(new AuthenticationRequiredError(message));
    expect(() => detectCredential(request({ authorization, 'x-api-key': KEY }))).toThrow(new AuthenticationRequiredError(message));
  });

  it('refuses the api_key query parameter, even beside a valid credential', () => {
    expect(() => detectCredential(request({ authorization: `Bearer ${JWT}` }, { api_key: KEY }))).toThrow(
      new AuthenticationRequiredError(REMOVED_METHOD_MESSAGES.apiKeyQuery),
    );
  });

  it('refuses a removed method before counting credentials', () => {
    expect(() => detectCredential(request({ 'x-api-key': KEY, 'x-auth-token': 'legacy' }))).toThrow(AuthenticationRequiredError);
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

  it('asks for a credential when there is none', () => {
    expect(() => detectCredential(request({ cookie: 'theme=dark' }))).toThrow(AuthenticationRequiredError);
  });
});
