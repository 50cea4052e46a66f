import type { ApiClient, QueryOf, RequestBody } from '../api-types';
import { ApiCall, emptyCall, recordCall } from '../calls/api-call';
import { ListCall } from '../calls/list-call';
import type { ListPage } from '../pagination';
import type { Member, Organization } from '../records';
import { RequestOptions, requestInit, WriteOptions } from './request-options';

export interface OrganizationMembers {
  list(organizationId: string, query?: QueryOf<'/v2/organizations/{id}/members', 'get'>, options?: RequestOptions): ListCall<Member, ListPage<'/v2/organizations/{id}/members'>['meta']>;
  add(organizationId: string, member: RequestBody<'/v2/organizations/{id}/members', 'post'>, options?: WriteOptions): ApiCall<Member>;
  remove(organizationId: string, userId: string, options?: RequestOptions): ApiCall<undefined>;
}

export interface Organizations {
  list(query?: QueryOf<'/v2/organizations', 'get'>, options?: RequestOptions): ListCall<Organization, ListPage<'/v2/organizations'>['meta']>;
  get(id: string, options?: RequestOptions): ApiCall<Organization>;
  create(organization: RequestBody<'/v2/organizations', 'post'>, options?: WriteOptions): ApiCall<Organization>;
  update(id: string, changes: RequestBody<'/v2/organizations/{id}', 'patch'>, options?: WriteOptions): ApiCall<Organization>;
  delete(id: string, options?: RequestOptions): ApiCall<undefined>;
  readonly members: OrganizationMembers;
}

export function organizationsOf(api: ApiClient): Organizations {
  return {
    list: (query = {}, options) => new ListCall((pageQuery) => api.GET('/v2/organizations', { params: { query: pageQuery }, ...requestInit(options) }), query),
    get: (id, options) => recordCall(api.GET('/v2/organizations/{id}', { params: { path: { id } }, ...requestInit(options) })),
    create: (organization, options) => recordCall(api.POST('/v2/organizations', { body: organization, ...requestInit(options) })),
    update: (id, changes, options) => recordCall(api.PATCH('/v2/organizations/{id}', { params: { path: { id } }, body: changes, ...requestInit(options) })),
    delete: (id, options) => emptyCall(api.DELETE('/v2/organizations/{id}', { params: { path: { id } }, ...requestInit(options) })),
    members: {
      list: (organizationId, query = {}, options) =>
        new ListCall(
          (pageQuery) => api.GET('/v2/organizations/{id}/members', { params: { path: { id: organizationId }, query: pageQuery }, ...requestInit(options) }),
          query,
        ),
      add: (organizationId, member, options) =>
        recordCall(api.POST('/v2/organizations/{id}/members', { params: { path: { id: organizationId } }, body: member, ...requestInit(options) })),
      remove: (organizationId, userId, options) =>
        emptyCall(api.DELETE('/v2/organizations/{id}/members/{user_id}', { params: { path: { id: organizationId, user_id: userId } }, ...requestInit(options) })),
    },
  };
}
