import type { ApiClient, QueryOf, RecordOf, RequestBody } from '../api-types';
import { ApiCall, emptyCall, recordCall } from '../calls/api-call';
import { ListCall } from '../calls/list-call';
import type { ListPage } from '../pagination';
import type { ApiKey, CreatedApiKey } from '../records';
import { RequestOptions, requestInit, WriteOptions } from './request-options';

export interface ApiKeys {
  list(query?: QueryOf<'/v2/api-keys', 'get'>, options?: RequestOptions): ListCall<ApiKey, ListPage<'/v2/api-keys'>['meta']>;
  create(apiKey: RequestBody<'/v2/api-keys', 'post'>, options?: WriteOptions): ApiCall<CreatedApiKey>;
  /** Revokes the key: requests with it are refused from now on. */
  revoke(id: string, options?: RequestOptions): ApiCall<undefined>;
  /** A new key with the same name and scopes, its secret shown once; the old one keeps working for `expires_in` seconds. */
  roll(id: string, roll?: RequestBody<'/v2/api-keys/{id}/roll', 'post'>, options?: WriteOptions): ApiCall<RecordOf<'/v2/api-keys/{id}/roll', 'post'>>;
}

export function apiKeysOf(api: ApiClient): ApiKeys {
  return {
    list: (query = {}, options) => new ListCall((pageQuery) => api.GET('/v2/api-keys', { params: { query: pageQuery }, ...requestInit(options) }), query),
    create: (apiKey, options) => recordCall(api.POST('/v2/api-keys', { body: apiKey, ...requestInit(options) })),
    revoke: (id, options) => emptyCall(api.DELETE('/v2/api-keys/{id}', { params: { path: { id } }, ...requestInit(options) })),
    roll: (id, roll = {}, options) => recordCall(api.POST('/v2/api-keys/{id}/roll', { params: { path: { id } }, body: roll, ...requestInit(options) })),
  };
}
