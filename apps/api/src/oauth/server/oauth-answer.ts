/** An answer of the authorization server in RFC 6749 form: a status, headers and a bare JSON body. */
export interface OAuthAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Token, revocation and introspection answers are never cached (RFC 6749 5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): OAuthAnswer {
  return { status, headers: { ...NO_STORE, ...headers }, body: { error, error_description: description } };
}
