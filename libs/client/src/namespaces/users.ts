import type { ApiClient, QueryOf, RequestBody } from '../api-types';
import { ApiCall, recordCall } from '../calls/api-call';
import { ListCall } from '../calls/list-call';
import type { ListPage } from '../pagination';
import type { User } from '../records';
import { RequestOptions, requestInit, WriteOptions } from './request-options';

export interface Users {
  /** The account the credential acts for. */
  me(options?: RequestOptions): ApiCall<User>;
  /** Changes the account's own profile. */
  updateMe(changes: RequestBody<'/v2/users/me', 'patch'>, options?: WriteOptions): ApiCall<User>;
  /** Every account (admins only). */
  list(query?: QueryOf<'/v2/users', 'get'>, options?: RequestOptions): ListCall<User, ListPage<'/v2/users'>['meta']>;
  /** Changes another account's role or plan (admins only). */
  update(id: string, changes: RequestBody<'/v2/users/{id}', 'patch'>, options?: WriteOptions): ApiCall<User>;
}

export function usersOf(api: ApiClient): Users {
  return {
    me: (options) => recordCall(api.GET('/v2/users/me', requestInit(options))),
    updateMe: (changes, options) => recordCall(api.PATCH('/v2/users/me', { body: changes, ...requestInit(options) })),
    list: (query = {}, options) => new ListCall((pageQuery) => api.GET('/v2/users', { params: { query: pageQuery }, ...requestInit(options) }), query),
    update: (id, changes, options) => recordCall(api.PATCH('/v2/users/{id}', { params: { path: { id } }, body: changes, ...requestInit(options) })),
  };
}
