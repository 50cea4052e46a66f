import { Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AuthenticationGuard } from './auth/guards/authentication.guard';
import { RevocationCheckGuard } from './auth/guards/revocation-check.guard';
import { ScopeGuard } from './auth/guards/scope.guard';
import { AppExceptionFilter } from './platform/filters/app-exception.filter';
import { IdempotencyGuard } from './platform/idempotency/idempotency.guard';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitedErrorFilter } from './rate-limit/rate-limited-error.filter';

/**
 * The whole path of a request, in order, registered here and nowhere else.
 *
 * Before Nest, one Express layer (`configureApiApp`): request id and the request's state
 * (RequestState, which the steps below share), request log line, metrics,
 * CORS (preflights answered there), `/v1` 410, 405 for a method a literal path lacks, body parser
 * and the one text rule.
 *
 * Nest runs global guards in the order they are listed, and asks global filters in the reverse
 * order, so this list is the documentation of the order. There are no interceptors: Nest wraps
 * every route in each of them, at a price on every request; the envelope is applied where
 * results are sent (`EnvelopeExpressAdapter`).
 */
export const REQUEST_PIPELINE: Provider[] = [
  // Filters: the rate-limit filter is asked first (it may turn a 401/403/404 into the 429),
  // then the one filter that renders every error in the envelope.
  { provide: APP_FILTER, useExisting: AppExceptionFilter },
  { provide: APP_FILTER, useExisting: RateLimitedErrorFilter },
  // Guards: who is calling, then what that credential may do, then whether the account (or
  // the client IP) still has requests left in its window, with the credential's revocation
  // checked in the same Redis script call. Then a revoked credential is refused; then, for writes,
  // the Idempotency-Key claim or replay (it stores the answer where Express sends it, after
  // the envelope and the filters).
  { provide: APP_GUARD, useExisting: AuthenticationGuard },
  { provide: APP_GUARD, useExisting: ScopeGuard },
  { provide: APP_GUARD, useExisting: RateLimitGuard },
  { provide: APP_GUARD, useExisting: RevocationCheckGuard },
  { provide: APP_GUARD, useExisting: IdempotencyGuard },
  // Then validation, declared on each DTO parameter (`@ValidBody()`, `@ValidQuery()`) rather
  // than registered as a global pipe; ValidationModule refuses to start without a declaration.
];
