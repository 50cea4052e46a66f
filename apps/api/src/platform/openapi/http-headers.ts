import type { HeaderObject, ParameterObject, ReferenceObject } from '@nestjs/swagger';

/**
 * The headers the service sends, described once as `components.headers` and referred to from
 * each response that carries them: the document normalizer adds those every answer carries,
 * and decorators add the rest where the code sends them.
 */
export const RESPONSE_HEADERS = {
  'X-Request-ID': {
    description: 'Identifies the request in the logs: the `X-Request-ID` you sent (1-128 of `[A-Za-z0-9._-]`), or a `req_` id the service made.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$', example: 'req_01JD3Q0F6K8W2M4N6P8R0T2V4X' },
  },
  'X-RateLimit-Limit': {
    description: "Requests allowed in the current 60-second window: your plan's limit, or the free limit per client IP without a credential.",
    schema: { type: 'integer', minimum: 1, example: 60 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0, example: 59 },
  },
  'X-RateLimit-Reset': {
    description: 'When the current window ends, in Unix seconds.',
    schema: { type: 'integer', minimum: 0, example: 1764067260 },
  },
  'RateLimit-Policy': {
    description: 'The limit as the IETF draft writes it: `"<plan>";q=<limit>;w=60`.',
    schema: { type: 'string', example: '"free";q=60;w=60' },
  },
  RateLimit: {
    description: 'What is left, as the IETF draft writes it: `"<plan>";r=<remaining>;t=<seconds to reset>`.',
    schema: { type: 'string', example: '"free";r=59;t=42' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 1, example: 2 },
  },
  ETag: {
    description: 'Strong entity tag of the record version, e.g. `"3"`: send it back in `If-Match` or `If-None-Match`.',
    schema: { type: 'string', example: '"3"' },
  },
  Location: {
    description: 'Where the browser goes next.',
    schema: { type: 'string', format: 'uri-reference' },
  },
  'Idempotent-Replayed': {
    description: 'Present on an answer replayed for a repeated `Idempotency-Key`: the status and body are those of the first request.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Idempotent-Secret-Omitted': {
    description:
      'Present on a replayed answer whose one-time secret was left out (secrets are never stored for replays): the ' +
      'fields missing, comma-separated. Delete the record and make another to get a new secret.',
    schema: { type: 'string', example: 'key' },
  },
  'Cache-Control': {
    description:
      'How the answer may be cached: `no-store` for tokens, probes, metrics, pages and redirects, `public, max-age=3600` ' +
      'for the authorization server metadata.',
    schema: { type: 'string', example: 'no-store' },
  },
  Pragma: {
    description: '`no-cache`, for HTTP/1.0 caches (RFC 6749 5.1).',
    schema: { type: 'string', enum: ['no-cache'] },
  },
  'Set-Cookie': {
    description: 'The cookie the answer sets or clears (`HttpOnly`, `SameSite=Lax`, `Path=/`; `Secure` outside development).',
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description: 'The HTTP Basic challenge, when the client authenticated with HTTP Basic.',
    schema: { type: 'string', example: 'Basic realm="Service"' },
  },
  'Content-Security-Policy': {
    description: 'Pages load nothing but their own hashed style, and post forms only to the service (and, after consent, the client).',
    schema: { type: 'string' },
  },
  'X-Frame-Options': {
    description: 'Pages are never framed.',
    schema: { type: 'string', enum: ['DENY'] },
  },
  'X-Content-Type-Options': {
    description: 'Browsers keep the declared content type.',
    schema: { type: 'string', enum: ['nosniff'] },
  },
  'Referrer-Policy': {
    description: 'Pages send no Referer, so no parameter of theirs leaks.',
    schema: { type: 'string', enum: ['no-referrer'] },
  },
} satisfies Record<string, HeaderObject>;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** A response's `headers` entries referring to the components of these names. */
export function responseHeaders(...names: ResponseHeaderName[]): Record<string, ReferenceObject> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** Request headers that several operations take, described once as `components.parameters`. */
export const REQUEST_HEADER_PARAMETERS = {
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      '1-255 characters, scoped to your account and kept 24 hours. Repeating the same request (method, path with ' +
      'query, body) with the same key replays the first answer with `Idempotent-Replayed: true`; another request ' +
      'with that key is 422 `idempotency_key_reused`; while the first still runs, 409 `idempotency_key_in_progress` with Retry-After.',
    schema: { type: 'string', minLength: 1, maxLength: 255, example: 'b6f1c1f0-6a1d-4c55-9d4e-3f7c2e8b9a10' },
  },
} satisfies Record<string, ParameterObject>;

export type RequestHeaderParameterName = keyof typeof REQUEST_HEADER_PARAMETERS;

export function requestHeaderParameter(name: RequestHeaderParameterName): ReferenceObject {
  return { $ref: `#/components/parameters/${name}` };
}
