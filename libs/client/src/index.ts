export { createRmsClient } from './client';
export type { RmsClient, RmsClientOptions } from './client';
export type { Credentials } from './credentials/credentials';
export type { OAuthClientCredentials } from './credentials/auth-endpoints';
export { RmsApiError, RmsError, RmsOAuthError, RmsResponseError, RmsUnexpectedResponseError } from './errors';
export { unwrap } from './unwrap';
export { ApiCall } from './calls/api-call';
export type { WithResponse } from './calls/api-call';
export { ListCall } from './calls/list-call';
export type { Page } from './calls/list-call';
export type { RateLimitState, ResponseInfo } from './calls/response-info';
export type { ConditionalWriteOptions, RequestOptions, WriteOptions } from './namespaces/request-options';
export type { ResourceDeleteOptions, ResourceReadOptions, Resources } from './namespaces/resources';
export type { ApiKeys } from './namespaces/api-keys';
export type { Webhooks, WebhookDeliveries } from './namespaces/webhooks';
export type { Events } from './namespaces/events';
export type { OrganizationMembers, Organizations } from './namespaces/organizations';
export type { Users } from './namespaces/users';
export type { OAuthClients } from './namespaces/oauth-clients';
export type {
  ApiKey,
  CreatedApiKey,
  CreatedOAuthClient,
  CreatedWebhook,
  Event,
  ListedResource,
  Member,
  OAuthClient,
  Organization,
  ReadResource,
  Resource,
  ResourceBulkResult,
  ResourceField,
  ResourceListField,
  ResourceListMeta,
  ResourceListQuery,
  SparseResource,
  User,
  Webhook,
  WebhookDelivery,
} from './records';
export { authorizationUrl, createPkcePair } from './oauth/authorization-code';
export type { AuthorizationCodeGrant, AuthorizationRequest, PkcePair } from './oauth/authorization-code';
export type { ListInit, ListItem, ListPage, ListPath } from './pagination';
export { DEFAULT_RETRY_POLICY } from './transport/retrying';
export type { RetryPolicy } from './transport/retrying';
export type { Transport } from './transport/transport';
export { verifyWebhook, verifyWebhookWithAnySecret, WebhookVerificationError } from './webhooks/verify-webhook';
export type { VerifyWebhookOptions, WebhookHeaders, WebhookSignatureScheme, WebhookVerificationFailure } from './webhooks/verify-webhook';
export type {
  ApiClient,
  ApiPaths,
  ErrorCode,
  ErrorEnvelope,
  FieldProblem,
  OAuthTokenResponse,
  SuccessBody,
  TokenPair,
  WebhookEvent,
  WebhookEventKind,
} from './api-types';
