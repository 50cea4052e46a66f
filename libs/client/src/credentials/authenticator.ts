/** The header that carries a credential on one request. */
export interface CredentialHeader {
  name: 'Authorization' | 'X-API-Key';
  value: string;
}

/** A credential as the transport uses it (transport/authenticating.ts). */
export interface Authenticator {
  /** The header to send now; may fetch a token first. */
  header(): Promise<CredentialHeader>;
  /**
   * Called after a 401 answered a request sent with the header value `rejected`: renews the
   * credential unless that already happened since, and says whether sending again may succeed.
   */
  renew(rejected: string): Promise<boolean>;
}

/** A credential that cannot be renewed: an API key, or a bearer token given as is. */
export function fixedCredential(header: CredentialHeader): Authenticator {
  return { header: () => Promise.resolve(header), renew: () => Promise.resolve(false) };
}

export function bearer(token: string): CredentialHeader {
  return { name: 'Authorization', value: `Bearer ${token}` };
}
