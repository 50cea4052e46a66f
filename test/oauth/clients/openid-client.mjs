// openid-client 6 as an OAuth client of the test app, with the library's defaults: discovery of
// the issuer's RFC 8414 metadata, client_secret_post when it has a secret (client_secret_basic
// only when `client_auth` asks for it), PKCE S256, and its checks of `state` and `iss`.
import * as client from 'openid-client';
import { URL } from 'node:url';
import { runCommand } from './command-line.mjs';

/** The plain-http test app needs allowInsecureRequests; nothing else is set. */
function configuration(input) {
  const auth = input.client_auth === 'client_secret_basic' ? client.ClientSecretBasic() : undefined;
  return client.discovery(new URL(input.issuer), input.client_id, input.client_secret, auth, {
    algorithm: 'oauth2',
    execute: [client.allowInsecureRequests],
  });
}

await runCommand({
  discover: async (input) => (await configuration(input)).serverMetadata(),
  'authorization-url': async (input) => {
    const config = await configuration(input);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: input.redirect_uri,
      scope: input.scope,
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, verifier, state };
  },
  'code-grant': async (input) =>
    client.authorizationCodeGrant(await configuration(input), new URL(input.callback_url), {
      pkceCodeVerifier: input.verifier,
      expectedState: input.state,
    }),
  refresh: async (input) => client.refreshTokenGrant(await configuration(input), input.refresh_token, input.scope ? { scope: input.scope } : undefined),
  'client-credentials': async (input) => client.clientCredentialsGrant(await configuration(input), { scope: input.scope }),
  introspect: async (input) => client.tokenIntrospection(await configuration(input), input.token),
  revoke: async (input) => client.tokenRevocation(await configuration(input), input.token),
});
