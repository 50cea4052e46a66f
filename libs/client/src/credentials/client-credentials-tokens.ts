import type { AuthEndpoints, OAuthClientCredentials } from './auth-endpoints';
import { Authenticator, bearer, CredentialHeader } from './authenticator';
import { singleFlight } from './single-flight';

/** A token is renewed this long before it expires, so that it does not expire in flight. */
const EXPIRY_MARGIN_MS = 30_000;

interface HeldToken {
  value: string;
  renewAt: number;
}

/**
 * OAuth access tokens of the client credentials grant, fetched from `/oauth/token` when first
 * needed, again shortly before each expires and after a 401; concurrent requests share a fetch.
 */
export class ClientCredentialsTokens implements Authenticator {
  private held: HeldToken | null = null;
  private readonly fetchToken = singleFlight(() => this.fetch());

  constructor(
    private readonly client: OAuthClientCredentials,
    private readonly endpoints: AuthEndpoints,
  ) {}

  async header(): Promise<CredentialHeader> {
    const token = this.held && Date.now() < this.held.renewAt ? this.held.value : await this.fetchToken();
    return bearer(token);
  }

  async renew(rejected: string): Promise<boolean> {
    if (this.held && rejected === bearer(this.held.value).value) {
      this.held = null;
      await this.fetchToken();
    }
    return true;
  }

  private async fetch(): Promise<string> {
    const token = await this.endpoints.clientCredentialsToken(this.client);
    this.held = { value: token.access_token, renewAt: Date.now() + token.expires_in * 1000 - EXPIRY_MARGIN_MS };
    return token.access_token;
  }
}
