import type { NextFunction, Request, Response } from 'express';

/** When /v1 was deprecated and when it was switched off (recorded in docs/decisions.md). */
export const V1_DEPRECATED_AT = new Date(Date.UTC(2025, 0, 1));
export const V1_SUNSET_AT = new Date(Date.UTC(2025, 6, 1));

const LEGACY_PATH = /^\/v1(\/|$)/i;

/** Headers of every /v1 answer (docs/api.md#legacy-v1): RFC 9745 Deprecation, RFC 8594 Sunset, successor link. */
const GONE_HEADERS = {
  Deprecation: `@${Math.floor(V1_DEPRECATED_AT.getTime() / 1000)}`,
  Sunset: V1_SUNSET_AT.toUTCString(),
  Link: '</v2>; rel="successor-version"',
};

/** The earlier error body shape, which /v1 clients already parse. */
const GONE_BODY = {
  status: 410,
  message:
    'API v1 has been removed. Use /v2 (documentation at /docs). ' +
    'Exchange a legacy X-Auth-Token for a token pair at POST /v2/auth/migrate.',
};

/**
 * Answers every `/v1/...` request, any method, with 410 Gone. Mounted as early express
 * middleware: no authentication, body parsing or rate limiting runs for it.
 */
export function legacyApiMiddleware(req: Request, res: Response, next: NextFunction): void {
  if (!LEGACY_PATH.test(req.path)) return next();
  (res.locals as { routeLabel?: string }).routeLabel = '/v1/{*path}';
  res.status(410).set(GONE_HEADERS).json(GONE_BODY);
}
