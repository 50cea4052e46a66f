import { REQUEST_ID_HEADER } from '../errors';

/** The account's request budget as the answer's `X-RateLimit-*` headers state it. */
export interface RateLimitState {
  /** Requests allowed in the window. */
  readonly limit: number;
  /** Requests left in it. */
  readonly remaining: number;
  /** When the window ends (`X-RateLimit-Reset`, Unix seconds). */
  readonly resetAt: Date;
}

/** What a successful answer said besides its body. */
export interface ResponseInfo {
  readonly status: number;
  /** The `X-Request-ID` to quote to support. */
  readonly requestId: string | null;
  /** The record's version (`ETag`), for `If-Match` and `If-None-Match`; resources only. */
  readonly etag: string | null;
  /** True when the answer is the stored one of an earlier request with the same `Idempotency-Key`. */
  readonly idempotentReplayed: boolean;
  /** Null on answers that are not counted (health, metrics). */
  readonly rateLimit: RateLimitState | null;
  /** Every header, for anything else. */
  readonly headers: Headers;
}

function rateLimitOf(headers: Headers): RateLimitState | null {
  const limit = headers.get('X-RateLimit-Limit');
  const remaining = headers.get('X-RateLimit-Remaining');
  const reset = headers.get('X-RateLimit-Reset');
  if (limit === null || remaining === null || reset === null) return null;
  return { limit: Number(limit), remaining: Number(remaining), resetAt: new Date(Number(reset) * 1000) };
}

export function responseInfoOf(response: Response): ResponseInfo {
  const { headers } = response;
  return {
    status: response.status,
    requestId: headers.get(REQUEST_ID_HEADER),
    etag: headers.get('ETag'),
    idempotentReplayed: headers.get('Idempotent-Replayed') === 'true',
    rateLimit: rateLimitOf(headers),
    headers,
  };
}
