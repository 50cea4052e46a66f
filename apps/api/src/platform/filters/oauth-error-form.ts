import type { AppError } from '@app/common';

/** The endpoints that answer machines in RFC 6749 form, errors raised before their handlers included. */
export const OAUTH_FORM_ENDPOINTS = /^\/oauth\/(token|revoke|introspect)\/?$/;

/** An error of the API as RFC 6749 5.2 has it: `{ error, error_description }`. */
export function renderOAuthError(error: AppError): { error: string; error_description: string } {
  const code =
    error.status === 401
      ? 'invalid_client'
      : error.status === 429 || error.status === 503
        ? 'temporarily_unavailable'
        : error.status >= 500
          ? 'server_error'
          : 'invalid_request';
  return { error: code, error_description: error.message };
}
