import type { ApiClient, QueryOf } from '../api-types';
import { ApiCall, recordCall } from '../calls/api-call';
import { ListCall } from '../calls/list-call';
import type { ListPage } from '../pagination';
import type { Event } from '../records';
import { RequestOptions, requestInit } from './request-options';

export interface Events {
  /** `GET /v2/events`, in cursor pages. */
  list(query?: QueryOf<'/v2/events', 'get'>, options?: RequestOptions): ListCall<Event, ListPage<'/v2/events'>['meta']>;
  get(id: string, options?: RequestOptions): ApiCall<Event>;
}

export function eventsOf(api: ApiClient): Events {
  return {
    list: (query = {}, options) => new ListCall((pageQuery) => api.GET('/v2/events', { params: { query: pageQuery }, ...requestInit(options) }), query),
    get: (id, options) => recordCall(api.GET('/v2/events/{id}', { params: { path: { id } }, ...requestInit(options) })),
  };
}
