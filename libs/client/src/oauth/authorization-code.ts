/** A PKCE pair (RFC 7636, S256): the verifier stays with the application, the challenge goes to authorize. */
export interface PkcePair {
  verifier: string;
  challenge: string;
}

/** What an authorization request names; the service requires PKCE of every client. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  /** Compared when the browser comes back, against cross-site request forgery. */
  state: string;
  /** The challenge of `createPkcePair()`. */
  codeChallenge: string;
  /** Space-separated scopes; all of the client's when omitted. */
  scope?: string;
}

/** The code and the pair's verifier, exchanged at `POST /oauth/token` for tokens. */
export interface AuthorizationCodeGrant {
  clientId: string;
  code: string;
  codeVerifier: string;
  redirectUri: string;
  /** Only for a confidential client; a public client (a page, an app) has none. */
  clientSecret?: string;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 32 random bytes as the verifier, its SHA-256 as the challenge, by WebCrypto (Node 20 and browsers). */
export async function createPkcePair(): Promise<PkcePair> {
  const verifier = base64url(globalThis.crypto.getRandomValues(new Uint8Array(32)));
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/** Where to send the browser: `GET /oauth/authorize` of the service at `baseUrl`. */
export function authorizationUrl(baseUrl: string, request: AuthorizationRequest): string {
  const url = new URL('/oauth/authorize', baseUrl);
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
  });
  if (request.scope !== undefined) params.set('scope', request.scope);
  url.search = params.toString();
  return url.toString();
}
