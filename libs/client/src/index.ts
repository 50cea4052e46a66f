export { createRmsClient } from './client';
export type { RmsClient, RmsClientOptions } from './client';
export type { Credentials } from './credentials/credentials';
export type { OAuthClientCredentials } from './credentials/auth-endpoints';
export { RmsApiError, RmsError, RmsOAuthError, RmsResponseError, RmsUnexpectedResponseError } from './errors';
export { unwrap } from './unwrap';
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
