import type { ApiClient, QueryOf, RequestBody } from '../api-types';
import { ApiCall, emptyCall, recordCall } from '../calls/api-call';
import { ListCall } from '../calls/list-call';
import type { ListPage } from '../pagination';
import type { CreatedOAuthClient, OAuthClient } from '../records';
import { RequestOptions, requestInit, WriteOptions } from './request-options';

export interface OAuthClients {
  list(query?: QueryOf<'/v2/oauth-clients', 'get'>, options?: RequestOptions): ListCall<OAuthClient, ListPage<'/v2/oauth-clients'>['meta']>;
  get(id: string, options?: RequestOptions): ApiCall<OAuthClient>;
  create(client: RequestBody<'/v2/oauth-clients', 'post'>, options?: WriteOptions): ApiCall<CreatedOAuthClient>;
  delete(id: string, options?: RequestOptions): ApiCall<undefined>;
}

export function oauthClientsOf(api: ApiClient): OAuthClients {
  return {
    list: (query = {}, options) => new ListCall((pageQuery) => api.GET('/v2/oauth-clients', { params: { query: pageQuery }, ...requestInit(options) }), query),
    get: (id, options) => recordCall(api.GET('/v2/oauth-clients/{id}', { params: { path: { id } }, ...requestInit(options) })),
    create: (client, options) => recordCall(api.POST('/v2/oauth-clients', { body: client, ...requestInit(options) })),
    delete: (id, options) => emptyCall(api.DELETE('/v2/oauth-clients/{id}', { params: { path: { id } }, ...requestInit(options) })),
  };
}
