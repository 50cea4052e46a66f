import type { QueryOf, RecordOf, SuccessBody } from './api-types';
import type { ListItem, ListPage } from './pagination';

/**
 * The records the namespaces answer with, derived from the generated document by path. Fields
 * are required where the service always sends them: a resource's read answers type every field
 * optional because `fields` may leave any out, so a resource is the read record with every field
 * required (which is the form writes answer), and a list or `fields` narrows it with `Pick`.
 */

/** A resource in its single form: every field, as `GET /v2/resources/{id}` sends it without `fields`. */
export type Resource = Required<RecordOf<'/v2/resources/{id}', 'get'>>;
/** The fields `fields` may ask for; `id` always comes. */
export type ResourceField = Exclude<keyof Resource, 'id'>;
/** The fields of a resource in a list without `fields` (docs/api.md#sparse-fields). */
export type ResourceListField = 'name' | 'type' | 'status' | 'created_at' | 'updated_at';
/** A resource read with `fields`: `id` and those fields. */
export type SparseResource<F extends ResourceField> = Pick<Resource, 'id' | F>;
/** A resource as a list shows it: `SparseResource` of the fields asked for, else of the list form's. */
export type ListedResource<F extends ResourceField = never> = SparseResource<[F] extends [never] ? ResourceListField : F>;
/** A resource as a read shows it: the single form, or `SparseResource` of the fields asked for. */
export type ReadResource<F extends ResourceField = never> = [F] extends [never] ? Resource : SparseResource<F>;
export type ResourceListMeta = ListPage<'/v2/resources'>['meta'];
/** `GET /v2/resources`'s filters, sort and pages, with `fields` as a list of names. */
export type ResourceListQuery<F extends ResourceField = never> = Omit<QueryOf<'/v2/resources', 'get'>, 'fields'> & {
  fields?: readonly F[];
};
/** The answer of a bulk write: the resources, and `meta.count`. */
export type ResourceBulkResult = Omit<SuccessBody<'/v2/resources/bulk', 'post'>, 'data'> & { data: Resource[] };

export type ApiKey = ListItem<'/v2/api-keys'>;
/** A new key: `key`, its secret, is in this answer only, and missing from an idempotent replay of it. */
export type CreatedApiKey = RecordOf<'/v2/api-keys', 'post'>;

export type Webhook = RecordOf<'/v2/webhooks/{id}', 'get'>;
/** A new webhook: `secret` is in this answer only, and missing from an idempotent replay of it. */
export type CreatedWebhook = RecordOf<'/v2/webhooks', 'post'>;
export type WebhookDelivery = RecordOf<'/v2/webhooks/{id}/deliveries/{deliveryId}', 'get'>;

export type Event = RecordOf<'/v2/events/{id}', 'get'>;

export type Organization = RecordOf<'/v2/organizations/{id}', 'get'>;
export type Member = ListItem<'/v2/organizations/{id}/members'>;

export type User = RecordOf<'/v2/users/me', 'get'>;

export type OAuthClient = RecordOf<'/v2/oauth-clients/{id}', 'get'>;
/** A new client: a confidential one's `client_secret` is in this answer only. */
export type CreatedOAuthClient = RecordOf<'/v2/oauth-clients', 'post'>;
