import { isRecord } from '../json-shapes';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency-keys';
import { retryAfterMs } from './retry-after';
import { sleep } from './sleep';
import { discard, Transport } from './transport';

export interface RetryPolicy {
  /** Attempts of one request in all, the first included (1 turns retries off). */
  maxAttempts: number;
  /**
   * The longest wait before a resend. A `Retry-After` asking for longer is not waited for: the
   * answer (429 or 503) is thrown at once, for the caller to schedule.
   */
  maxDelayMs: number;
  /** The first backoff when the service names no wait; it doubles with each attempt. */
  baseDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, maxDelayMs: 20_000, baseDelayMs: 500 };

/** Answers that say the request was not processed and may succeed later (rate limit, dependency down). */
const RETRIED_STATUSES = new Set([429, 503]);
/** Methods whose resend cannot do a thing twice (RFC 9110 9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * A network error leaves unknown whether the service acted, so only requests that are safe to
 * repeat are sent again: idempotent methods, and writes carrying an Idempotency-Key.
 */
function mayResendAfterNetworkError(request: Request, error: unknown): boolean {
  // fetch reports a network failure as a TypeError, told by name because it may come from
  // another realm (an iframe, a test sandbox). An abort is the caller's decision.
  if (!isRecord(error) || error.name !== 'TypeError' || request.signal.aborted) return false;
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has(IDEMPOTENCY_KEY_HEADER);
}

/** Exponential backoff with jitter, so that clients refused together do not come back together. */
function backoffMs(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * A 409 `idempotency_key_in_progress`: the first request with this Idempotency-Key still runs, and
 * the same request sent after its Retry-After gets that request's answer, so it is worth the wait.
 */
async function isKeyStillInProgress(response: Response): Promise<boolean> {
  if (response.status !== 409 || !response.headers.has('Retry-After')) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  return isRecord(body) && isRecord(body.error) && body.error.code === 'idempotency_key_in_progress';
}

/** The wait before resending after `response`, or null when the service asks for longer than the policy allows. */
function waitAfter(response: Response, policy: RetryPolicy, attempt: number): number | null {
  const asked = retryAfterMs(response.headers.get('Retry-After'));
  if (asked === undefined) return backoffMs(policy, attempt);
  return asked <= policy.maxDelayMs ? asked : null;
}

/**
 * Resends a request answered 429 or 503, or 409 while its Idempotency-Key's first request runs, or
 * lost to the network when that is safe, as the policy allows.
 */
export function retrying(send: Transport, policy: RetryPolicy): Transport {
  return async (request) => {
    for (let attempt = 1; ; attempt += 1) {
      const final = attempt >= policy.maxAttempts;
      let response: Response;
      try {
        // A clone each time: sending consumes a body, and the request may be needed again.
        response = await send(request.clone());
      } catch (error) {
        if (final || !mayResendAfterNetworkError(request, error)) throw error;
        await sleep(backoffMs(policy, attempt), request.signal);
        continue;
      }
      const retried = !final && (RETRIED_STATUSES.has(response.status) || (await isKeyStillInProgress(response)));
      const wait = retried ? waitAfter(response, policy, attempt) : null;
      if (wait === null) return response;
      await discard(response);
      await sleep(wait, request.signal);
    }
  };
}
