import type { Client, ClientPathsWithMethod, FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { paths, webhooks } from './generated/openapi.js';

/**
 * Types named after what they are, derived from the generated document by path or event kind
 * rather than by schema name, so that renaming a schema in the API does not break the SDK.
 */

/** Every operation of the service, by its full path from the origin (`/v2/resources`, `/oauth/token`). */
export type ApiPaths = paths;
export type ApiClient = Client<paths>;
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
export type PathWith<M extends HttpMethod> = ClientPathsWithMethod<ApiClient, M>;
/** The options of one call (`params`, `body`, `headers`...) as openapi-fetch takes them. */
export type CallInit<P extends PathWith<M>, M extends HttpMethod> = MaybeOptionalInit<paths[P], M>;

type Answer<P extends PathWith<M>, M extends HttpMethod> = FetchResponse<Extract<paths[P][M], object>, object, 'application/json'>;
/** The JSON body of a 2xx answer. */
export type SuccessBody<P extends PathWith<M>, M extends HttpMethod> = NonNullable<Answer<P, M>['data']>;
type ErrorBody<P extends PathWith<M>, M extends HttpMethod> = NonNullable<Answer<P, M>['error']>;

/** `{ error: { code, message, details? } }`, the body of every error under `/v2`. */
export type ErrorEnvelope = ErrorBody<'/v2/users/me', 'get'>;
/** Every error code the service answers with. */
export type ErrorCode = ErrorEnvelope['error']['code'];
/** One offending field of a `validation_error` (and of some 403, 404 and 409 answers). */
export type FieldProblem = NonNullable<ErrorEnvelope['error']['details']>[number];

/** The token pair of login, refresh and migrate. */
export type TokenPair = SuccessBody<'/v2/auth/login', 'post'>['data'];
/** The RFC 6749 answer of `/oauth/token`. */
export type OAuthTokenResponse = SuccessBody<'/oauth/token', 'post'>;
/** The kinds of event a webhook may subscribe to. */
export type WebhookEventKind = keyof webhooks;
/** The event a webhook receives, of one kind or (by default) of any: `type` tells them apart. */
export type WebhookEvent<K extends WebhookEventKind = WebhookEventKind> = {
  [Kind in K]: webhooks[Kind]['post']['requestBody']['content']['application/json'];
}[K];

type Operation<P extends PathWith<M>, M extends HttpMethod> = Extract<paths[P][M], object>;
/** The JSON body a call sends. */
export type RequestBody<P extends PathWith<M>, M extends HttpMethod> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;
/** The query parameters of a call. */
export type QueryOf<P extends PathWith<M>, M extends HttpMethod> = NonNullable<Operation<P, M>['parameters']['query']>;
/** The record of a `{ data: <record> }` answer. */
export type RecordOf<P extends PathWith<M>, M extends HttpMethod> = SuccessBody<P, M> extends { data: infer Data } ? Data : never;
