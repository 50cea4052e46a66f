import type { IncomingHttpHeaders } from 'node:http';

export const REDACTED = '[REDACTED]';

/** Request and response headers that carry credentials (docs/api.md#logging: never logged). */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-auth-token',
  'x-csrf-token',
]);

/**
 * Query parameters that carry credentials. `api_key` is a removed method that clients still
 * send; the others are what OAuth-minded clients put in URLs by habit.
 */
const SECRET_QUERY_PARAMETERS = new Set([
  'api_key',
  'apikey',
  'access_token',
  'refresh_token',
  'client_secret',
  'token',
  'password',
]);

/** A copy of the headers with every credential replaced by `[REDACTED]`. */
export function redactHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  // for-in rather than Object.entries: no array per header for every request logged.
  for (const name in headers) {
    copy[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : headers[name];
  }
  return copy;
}

/** The URL with the values of credential query parameters replaced by `[REDACTED]`. */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const pairs = url.slice(start + 1).split('&');
  let changed = false;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i];
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    if (isSecretParameter(rawName)) {
      pairs[i] = `${rawName}=${REDACTED}`;
      changed = true;
    }
  }
  return changed ? `${url.slice(0, start)}?${pairs.join('&')}` : url;
}

/** Compares the name as the query parser reads it: decoded, case-insensitive, without `[...]`. */
function isSecretParameter(rawName: string): boolean {
  let name = rawName.replace(/\+/g, ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // A malformed escape stays as sent; the raw name is still compared.
  }
  const bracket = name.indexOf('[');
  if (bracket !== -1) name = name.slice(0, bracket);
  return SECRET_QUERY_PARAMETERS.has(name.trim().toLowerCase());
}
