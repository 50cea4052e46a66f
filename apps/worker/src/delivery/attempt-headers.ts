import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** How many headers an attempt keeps: the receiver chooses them, and they live in the delivery row. */
export const HEADER_COUNT_LIMIT = 50;
/** How much of each header value an attempt keeps, in characters (header values are Latin-1, a byte each). */
export const HEADER_VALUE_LIMIT = 1024;

/**
 * Headers as an attempt records them: names lower-cased, the values of a repeated header joined
 * with `, `, the first 50 headers only and each value cut to its first KiB, so that a receiver
 * cannot make a delivery row as large as it likes.
 */
export function boundedHeaders(headers: IncomingHttpHeaders | OutgoingHttpHeaders): Record<string, string> {
  const kept = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    const earlier = kept.get(key);
    if (earlier === undefined && kept.size >= HEADER_COUNT_LIMIT) continue;
    kept.set(key, (earlier === undefined ? text : `${earlier}, ${text}`).slice(0, HEADER_VALUE_LIMIT));
  }
  // Built from entries rather than assigned, so that a header named `__proto__` is kept as one.
  return Object.fromEntries(kept);
}
