import type { ApiClient, QueryOf, RecordOf, RequestBody } from '../api-types';
import { ApiCall, emptyCall, recordCall } from '../calls/api-call';
import { ListCall } from '../calls/list-call';
import type { ListPage } from '../pagination';
import type { CreatedWebhook, Webhook, WebhookDelivery } from '../records';
import { RequestOptions, requestInit, WriteOptions } from './request-options';

export interface WebhookDeliveries {
  /** Every delivery of the webhook, each with its attempts. */
  list(webhookId: string, query?: QueryOf<'/v2/webhooks/{id}/deliveries', 'get'>, options?: RequestOptions): ListCall<WebhookDelivery, ListPage<'/v2/webhooks/{id}/deliveries'>['meta']>;
  get(webhookId: string, deliveryId: string, options?: RequestOptions): ApiCall<WebhookDelivery>;
  /** Sends a failed delivery again now. */
  retry(webhookId: string, deliveryId: string, options?: WriteOptions): ApiCall<RecordOf<'/v2/webhooks/{id}/deliveries/{deliveryId}/retry', 'post'>>;
}

export interface Webhooks {
  list(query?: QueryOf<'/v2/webhooks', 'get'>, options?: RequestOptions): ListCall<Webhook, ListPage<'/v2/webhooks'>['meta']>;
  get(id: string, options?: RequestOptions): ApiCall<Webhook>;
  create(webhook: RequestBody<'/v2/webhooks', 'post'>, options?: WriteOptions): ApiCall<CreatedWebhook>;
  update(id: string, changes: RequestBody<'/v2/webhooks/{id}', 'patch'>, options?: WriteOptions): ApiCall<Webhook>;
  delete(id: string, options?: RequestOptions): ApiCall<undefined>;
  /** Sends the webhook a test event (of `event_type`, by default `resource.created`). */
  test(id: string, test?: RequestBody<'/v2/webhooks/{id}/test', 'post'>, options?: WriteOptions): ApiCall<RecordOf<'/v2/webhooks/{id}/test', 'post'>>;
  /** A new signing secret, shown once; deliveries carry both signatures until `previous_secret_expires_at`. */
  rotateSecret(
    id: string,
    rotation?: RequestBody<'/v2/webhooks/{id}/secret/rotate', 'post'>,
    options?: WriteOptions,
  ): ApiCall<RecordOf<'/v2/webhooks/{id}/secret/rotate', 'post'>>;
  /** Sends the failed deliveries created in `[since, until)` again, each with a fresh schedule. */
  recover(id: string, window: RequestBody<'/v2/webhooks/{id}/recover', 'post'>, options?: WriteOptions): ApiCall<RecordOf<'/v2/webhooks/{id}/recover', 'post'>>;
  readonly deliveries: WebhookDeliveries;
}

export function webhooksOf(api: ApiClient): Webhooks {
  return {
    list: (query = {}, options) => new ListCall((pageQuery) => api.GET('/v2/webhooks', { params: { query: pageQuery }, ...requestInit(options) }), query),
    get: (id, options) => recordCall(api.GET('/v2/webhooks/{id}', { params: { path: { id } }, ...requestInit(options) })),
    create: (webhook, options) => recordCall(api.POST('/v2/webhooks', { body: webhook, ...requestInit(options) })),
    update: (id, changes, options) => recordCall(api.PATCH('/v2/webhooks/{id}', { params: { path: { id } }, body: changes, ...requestInit(options) })),
    delete: (id, options) => emptyCall(api.DELETE('/v2/webhooks/{id}', { params: { path: { id } }, ...requestInit(options) })),
    test: (id, test = {}, options) => recordCall(api.POST('/v2/webhooks/{id}/test', { params: { path: { id } }, body: test, ...requestInit(options) })),
    rotateSecret: (id, rotation = {}, options) =>
      recordCall(api.POST('/v2/webhooks/{id}/secret/rotate', { params: { path: { id } }, body: rotation, ...requestInit(options) })),
    recover: (id, window, options) => recordCall(api.POST('/v2/webhooks/{id}/recover', { params: { path: { id } }, body: window, ...requestInit(options) })),
    deliveries: {
      list: (webhookId, query = {}, options) =>
        new ListCall(
          (pageQuery) => api.GET('/v2/webhooks/{id}/deliveries', { params: { path: { id: webhookId }, query: pageQuery }, ...requestInit(options) }),
          query,
        ),
      get: (webhookId, deliveryId, options) =>
        recordCall(api.GET('/v2/webhooks/{id}/deliveries/{deliveryId}', { params: { path: { id: webhookId, deliveryId } }, ...requestInit(options) })),
      retry: (webhookId, deliveryId, options) =>
        recordCall(api.POST('/v2/webhooks/{id}/deliveries/{deliveryId}/retry', { params: { path: { id: webhookId, deliveryId } }, ...requestInit(options) })),
    },
  };
}
