import createClient from 'openapi-fetch';
import type { ApiClient, ApiPaths, OAuthTokenResponse } from './api-types';
import { authEndpoints } from './credentials/auth-endpoints';
import type { AuthorizationCodeGrant } from './oauth/authorization-code';
import { authenticatorFor, Credentials } from './credentials/credentials';
import { ListInitArgs, ListItem, listItems, ListPage, listPages, ListPath } from './pagination';
import { authenticating } from './transport/authenticating';
import { failingOnErrors } from './transport/failing-on-errors';
import { withIdempotencyKeys } from './transport/idempotency-keys';
import { DEFAULT_RETRY_POLICY, retrying, RetryPolicy } from './transport/retrying';
import type { Transport } from './transport/transport';
import { ApiKeys, apiKeysOf } from './namespaces/api-keys';
import { Events, eventsOf } from './namespaces/events';
import { OAuthClients, oauthClientsOf } from './namespaces/oauth-clients';
import { Organizations, organizationsOf } from './namespaces/organizations';
import { Resources, resourcesOf } from './namespaces/resources';
import { Users, usersOf } from './namespaces/users';
import { Webhooks, webhooksOf } from './namespaces/webhooks';

export interface RmsClientOptions {
  /** The service's origin, such as `https://api.example.com`; paths carry `/v2` themselves. */
  baseUrl: string;
  /** The credential sent with every request; none for the public endpoints (register, login). */
  credentials?: Credentials;
  /** Resends of 429, 503 and network errors; the defaults are DEFAULT_RETRY_POLICY. */
  retry?: Partial<RetryPolicy>;
  /** What sends a request; `globalThis.fetch` at the time of each call by default. */
  fetch?: Transport;
}

export interface RmsClient {
  /**
   * The operations by name (`rms.resources.get(id)`): each call gives the record, and
   * `.withResponse()` the record with its response's status, ETag, request id,
   * `Idempotent-Replayed` and rate-limit state. A list is awaited for one page or iterated with
   * `for await` for every record.
   */
  readonly resources: Resources;
  readonly apiKeys: ApiKeys;
  readonly webhooks: Webhooks;
  readonly events: Events;
  readonly organizations: Organizations;
  readonly users: Users;
  readonly oauthClients: OAuthClients;
  /**
   * The typed openapi-fetch client: every operation of the document by its full path. A call
   * resolves with `{ data, response }` for a success and throws RmsApiError (or RmsOAuthError
   * for `/oauth/*`) for any 4xx or 5xx, after the retries the policy allows.
   */
  readonly api: ApiClient;
  /** Every page of a list (offset or cursor), as `{ data, meta }`. */
  pages<P extends ListPath>(path: P, ...init: ListInitArgs<P>): AsyncGenerator<ListPage<P>, void, undefined>;
  /** Every record of a list, following its pages. */
  paginate<P extends ListPath>(path: P, ...init: ListInitArgs<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /** The authorization code grant's last step: the code and the PKCE verifier for tokens. */
  exchangeAuthorizationCode(grant: AuthorizationCodeGrant): Promise<OAuthTokenResponse>;
}

/**
 * A client of the service. Layers, outermost first: typed errors, an Idempotency-Key for each
 * POST and PATCH, the credential (renewed after a 401, then sent once more), retries.
 */
export function createRmsClient(options: RmsClientOptions): RmsClient {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const network: Transport = options.fetch ?? ((request) => globalThis.fetch(request));
  const resending = retrying(network, policy);
  const withoutCredential = createClient<ApiPaths>({ baseUrl: options.baseUrl, fetch: failingOnErrors(resending) });
  const endpoints = authEndpoints(withoutCredential);
  const send = options.credentials ? authenticating(resending, authenticatorFor(options.credentials, endpoints)) : resending;
  const api = createClient<ApiPaths>({ baseUrl: options.baseUrl, fetch: failingOnErrors(withIdempotencyKeys(send)) });
  return {
    resources: resourcesOf(api),
    apiKeys: apiKeysOf(api),
    webhooks: webhooksOf(api),
    events: eventsOf(api),
    organizations: organizationsOf(api),
    users: usersOf(api),
    oauthClients: oauthClientsOf(api),
    api,
    pages: (path, ...init) => listPages(api, path, ...init),
    paginate: (path, ...init) => listItems(api, path, ...init),
    exchangeAuthorizationCode: (grant) => endpoints.authorizationCodeToken(grant),
  };
}
