import type { ApiClient, RequestBody } from '../api-types';
import { ApiCall, bodyCall, emptyCall, FetchAnswer, recordCall } from '../calls/api-call';
import { ListCall, Page } from '../calls/list-call';
import type { ListedResource, ReadResource, Resource, ResourceBulkResult, ResourceField, ResourceListMeta, ResourceListQuery } from '../records';
import { ConditionalWriteOptions, RequestOptions, requestInit, WriteOptions } from './request-options';

export interface ResourceReadOptions<F extends ResourceField> extends RequestOptions {
  /** Only these fields (and `id`). */
  fields?: readonly F[];
}

export interface ResourceDeleteOptions extends ConditionalWriteOptions {
  /** Delete for good rather than softly. */
  hard?: boolean;
}

export interface Resources {
  /** `GET /v2/resources`: offset pages, or cursor pages when the query has `limit` or `cursor`. */
  list<F extends ResourceField = never>(query?: ResourceListQuery<F>, options?: RequestOptions): ListCall<ListedResource<F>, ResourceListMeta>;
  get<F extends ResourceField = never>(id: string, options?: ResourceReadOptions<F>): ApiCall<ReadResource<F>>;
  /** The resource, or null when its ETag is still `etag` (a 304). */
  getIfChanged(id: string, etag: string, options?: RequestOptions): ApiCall<Resource | null>;
  create(resource: RequestBody<'/v2/resources', 'post'>, options?: WriteOptions): ApiCall<Resource>;
  /** PATCH: changes the fields given. */
  update(id: string, changes: RequestBody<'/v2/resources/{id}', 'patch'>, options?: ConditionalWriteOptions): ApiCall<Resource>;
  /** PUT: replaces the writable fields; those left out take their defaults. */
  replace(id: string, resource: RequestBody<'/v2/resources/{id}', 'put'>, options?: ConditionalWriteOptions): ApiCall<Resource>;
  delete(id: string, options?: ResourceDeleteOptions): ApiCall<undefined>;
  /** Creates them all or none. */
  bulkCreate(resources: RequestBody<'/v2/resources/bulk', 'post'>['resources'], options?: WriteOptions): ApiCall<ResourceBulkResult>;
  /** Sets the same fields on every resource listed, all or none. */
  bulkUpdate(ids: string[], updates: RequestBody<'/v2/resources/bulk', 'patch'>['updates'], options?: WriteOptions): ApiCall<ResourceBulkResult>;
}

/**
 * The document types a read resource's fields as optional, since `fields` may leave any out;
 * the methods type the answer by the query instead (records.ts), so their answers are retyped here.
 */
function asAnswerOf<Body>(call: Promise<FetchAnswer<unknown>>): Promise<FetchAnswer<Body>> {
  return call as Promise<FetchAnswer<Body>>;
}

function fieldsQuery(fields: readonly string[] | undefined): { fields?: string } {
  return fields ? { fields: fields.join(',') } : {};
}

export function resourcesOf(api: ApiClient): Resources {
  return {
    list: <F extends ResourceField = never>(query: ResourceListQuery<F> = {}, options?: RequestOptions) => {
      const { fields, ...rest } = query;
      const readPage = (pageQuery: object) =>
        asAnswerOf<Page<ListedResource<F>, ResourceListMeta>>(api.GET('/v2/resources', { params: { query: pageQuery }, ...requestInit(options) }));
      return new ListCall(readPage, { ...rest, ...fieldsQuery(fields) });
    },
    get: <F extends ResourceField = never>(id: string, options: ResourceReadOptions<F> = {}) =>
      recordCall(
        asAnswerOf<{ data: ReadResource<F> }>(api.GET('/v2/resources/{id}', { params: { path: { id }, query: fieldsQuery(options.fields) }, ...requestInit(options) })),
      ),
    getIfChanged: (id, etag, options = {}) => {
      const init = requestInit({ ...options, headers: { ...options.headers, 'If-None-Match': etag } });
      const call = asAnswerOf<{ data: Resource }>(api.GET('/v2/resources/{id}', { params: { path: { id } }, ...init }));
      return bodyCall(call.then(({ data, response }) => ({ data: data?.data ?? null, response })));
    },
    create: (resource, options) => recordCall(asAnswerOf<{ data: Resource }>(api.POST('/v2/resources', { body: resource, ...requestInit(options) }))),
    update: (id, changes, options) =>
      recordCall(asAnswerOf<{ data: Resource }>(api.PATCH('/v2/resources/{id}', { params: { path: { id } }, body: changes, ...requestInit(options) }))),
    replace: (id, resource, options) =>
      recordCall(asAnswerOf<{ data: Resource }>(api.PUT('/v2/resources/{id}', { params: { path: { id } }, body: resource, ...requestInit(options) }))),
    delete: (id, options = {}) =>
      emptyCall(api.DELETE('/v2/resources/{id}', { params: { path: { id }, query: options.hard ? { hard: 'true' } : {} }, ...requestInit(options) })),
    bulkCreate: (resources, options) =>
      bodyCall(asAnswerOf<ResourceBulkResult>(api.POST('/v2/resources/bulk', { body: { resources }, ...requestInit(options) }))),
    bulkUpdate: (ids, updates, options) =>
      bodyCall(asAnswerOf<ResourceBulkResult>(api.PATCH('/v2/resources/bulk', { body: { ids, updates }, ...requestInit(options) }))),
  };
}
