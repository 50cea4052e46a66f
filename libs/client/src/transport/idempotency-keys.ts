import type { Transport } from './transport';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** The methods the service deduplicates by key (docs/api.md#idempotency). */
const KEYED_METHODS = new Set(['POST', 'PATCH']);

/**
 * Gives every POST and PATCH an `Idempotency-Key` unless the caller set one. It is added
 * outside the retry and refresh layers, so every resend of one call carries the same key and
 * the service runs the write at most once.
 */
export function withIdempotencyKeys(send: Transport): Transport {
  return (request) => {
    if (KEYED_METHODS.has(request.method) && !request.headers.has(IDEMPOTENCY_KEY_HEADER)) {
      request.headers.set(IDEMPOTENCY_KEY_HEADER, globalThis.crypto.randomUUID());
    }
    return send(request);
  };
}
