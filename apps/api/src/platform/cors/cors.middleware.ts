import type { NextFunction, Request, Response } from 'express';

/** What pages of a listed origin may do on one part of the service. */
interface CorsScope {
  /** Whether the browser may send the session cookie along (and let the page read the answer). */
  credentials: boolean;
  /** The methods a preflight allows. */
  methods: string;
}

/**
 * Where browsers of listed origins may call. The API takes the session cookie, so a listed
 * origin may send it. The token and revocation endpoints authenticate the client by what it
 * sends in the request, never by a cookie, and the metadata is public: no credentials there.
 * `/oauth/introspect` is absent on purpose: it serves resource servers and confidential clients
 * (RFC 7662), never a page, and a page has no business asking what a token is worth.
 */
const SCOPES: ReadonlyArray<{ path: RegExp; scope: CorsScope }> = [
  { path: /^\/v2(\/|$)/i, scope: { credentials: true, methods: 'GET, HEAD, POST, PUT, PATCH, DELETE' } },
  { path: /^\/oauth\/(token|revoke)\/?$/i, scope: { credentials: false, methods: 'POST' } },
  { path: /^\/\.well-known\/oauth-authorization-server\/?$/i, scope: { credentials: false, methods: 'GET, HEAD' } },
];

/** The request headers a page may send: every credential and precondition header the API reads. */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-API-Key',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'X-Request-ID',
  'X-CSRF-Token',
].join(', ');

/** The response headers a page may read beyond the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-ID',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
  'ETag',
  'Idempotent-Replayed',
  'Idempotent-Secret-Omitted',
  'Location',
].join(', ');

/**
 * How long a browser may reuse a preflight's answer, in seconds: Chromium's ceiling. An origin
 * taken off the list loses nothing by it, since every answer is checked again on its own.
 */
export const CORS_MAX_AGE_SECONDS = 7200;

/** The metrics route label of preflights, which match no route. */
export const PREFLIGHT_ROUTE = 'cors-preflight';

function scopeOf(path: string): CorsScope | undefined {
  return SCOPES.find((entry) => entry.path.test(path))?.scope;
}

/**
 * CORS for the origins of `CORS_ORIGINS`, one of the early middleware (`configureApiApp`), so
 * that every answer, errors and 429s included, carries the headers a page needs to read it, and
 * a preflight is answered here: no authentication, rate limit or body parsing runs for it.
 *
 * A request from an origin not listed (or with none) gets no CORS header, as if CORS did not
 * exist: the browser then refuses the page the answer, preflights included. An OPTIONS request
 * without `Access-Control-Request-Method` is no preflight and gets the usual `Allow` answer.
 * `cors` (from @nestjs/platform-express) is not used: it takes every OPTIONS for a preflight,
 * answers preflights of unlisted origins with CORS headers all the same, and has one policy for
 * every path.
 */
export function corsMiddleware(origins: readonly string[]): (req: Request, res: Response, next: NextFunction) => void {
  const listed = new Set(origins);
  return (req, res, next) => {
    const scope = listed.size === 0 ? undefined : scopeOf(req.path);
    if (scope === undefined) return next();
    // The answer depends on Origin: a cache must not hand one origin's answer to another.
    res.vary('Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !listed.has(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    if (scope.credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      (res.locals as { routeLabel?: string }).routeLabel = PREFLIGHT_ROUTE;
      res.setHeader('Access-Control-Allow-Methods', scope.methods);
      res.setHeader('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
      res.status(204).end();
      return;
    }
    res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
    next();
  };
}
