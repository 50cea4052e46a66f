// oauth4webapi 3 as an OAuth client of the test app: discovery of the issuer's RFC 8414
// metadata, client_secret_basic (the method every server must support, RFC 6749 2.3.1), or
// none for a public client, PKCE S256, and its checks of `state` and `iss`.
import * as oauth from 'oauth4webapi';
import { URL, URLSearchParams } from 'node:url';
import { runCommand } from './command-line.mjs';

/** The plain-http test app needs allowInsecureRequests on every request. */
const insecure = { [oauth.allowInsecureRequests]: true };

async function setup(input) {
  const issuer = new URL(input.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  const clientAuth = input.client_secret ? oauth.ClientSecretBasic(input.client_secret) : oauth.None();
  return { as, client: { client_id: input.client_id }, clientAuth };
}

await runCommand({
  discover: async (input) => (await setup(input)).as,
  'authorization-url': async (input) => {
    const { as, client } = await setup(input);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: input.redirect_uri,
      scope: input.scope,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    return { url: url.href, verifier, state };
  },
  'code-grant': async (input) => {
    const { as, client, clientAuth } = await setup(input);
    const params = oauth.validateAuthResponse(as, client, new URL(input.callback_url), input.state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, input.redirect_uri, input.verifier, insecure);
    return oauth.processAuthorizationCodeResponse(as, client, response);
  },
  refresh: async (input) => {
    const { as, client, clientAuth } = await setup(input);
    const additionalParameters = input.scope ? { scope: input.scope } : undefined;
    const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, input.refresh_token, { additionalParameters, ...insecure });
    return oauth.processRefreshTokenResponse(as, client, response);
  },
  'client-credentials': async (input) => {
    const { as, client, clientAuth } = await setup(input);
    const response = await oauth.clientCredentialsGrantRequest(as, client, clientAuth, { scope: input.scope }, insecure);
    return oauth.processClientCredentialsResponse(as, client, response);
  },
  introspect: async (input) => {
    const { as, client, clientAuth } = await setup(input);
    return oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, clientAuth, input.token, insecure));
  },
  revoke: async (input) => {
    const { as, client, clientAuth } = await setup(input);
    return oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, input.token, insecure));
  },
});
