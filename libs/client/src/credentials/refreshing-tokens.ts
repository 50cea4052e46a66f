import type { TokenPair } from '../api-types';
import type { AuthEndpoints } from './auth-endpoints';
import { Authenticator, bearer, CredentialHeader } from './authenticator';
import { singleFlight } from './single-flight';

/**
 * The JWT pair of a login. After a 401 it refreshes (`POST /v2/auth/refresh` rotates both
 * tokens) once for all requests refused together, hands the new pair to `onRefresh` to keep,
 * and the refused requests are sent again. Once the service refuses the refresh token, it is
 * not tried again: the 401s reach the caller, who must log in again.
 */
export class RefreshingTokens implements Authenticator {
  private refused = false;
  private readonly rotate = singleFlight(() => this.refresh());

  constructor(
    private tokens: TokenPair,
    private readonly endpoints: AuthEndpoints,
    private readonly onRefresh?: (tokens: TokenPair) => void,
  ) {}

  header(): Promise<CredentialHeader> {
    return Promise.resolve(bearer(this.tokens.access_token));
  }

  async renew(rejected: string): Promise<boolean> {
    if (rejected !== bearer(this.tokens.access_token).value) return true;
    return !this.refused && this.rotate();
  }

  private async refresh(): Promise<boolean> {
    const next = await this.endpoints.refresh(this.tokens.refresh_token);
    if (!next) {
      this.refused = true;
      return false;
    }
    this.tokens = next;
    this.onRefresh?.(next);
    return true;
  }
}
