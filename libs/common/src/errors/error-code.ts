/** Every error code the service answers with, and the HTTP status that goes with it. */
export const ERROR_STATUS = {
  invalid_request: 400,
  validation_error: 400,
  authentication_required: 401,
  insufficient_permissions: 403,
  resource_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_in_progress: 409,
  idempotency_key_answer_lost: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  internal_server_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
