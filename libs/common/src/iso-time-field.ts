/** The second the cached prefix is of, and the prefix: `,"time":"2026-11-28T10:45:50.`. */
let cachedSecond = Number.NaN;
let cachedPrefix = '';

/**
 * pino's `isoTime` field, with the date and time to the second formatted once a second:
 * `Date.prototype.toISOString` costs about a microsecond, once per line.
 */
export function isoTimeField(now: number = Date.now()): string {
  const millisecond = now % 1000;
  const second = now - millisecond;
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = `,"time":"${new Date(second).toISOString().slice(0, 20)}`;
  }
  return `${cachedPrefix}${millisecond < 10 ? '00' : millisecond < 100 ? '0' : ''}${millisecond}Z"`;
}
