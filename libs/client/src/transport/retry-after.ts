/** An HTTP date in its preferred form (RFC 9110 5.6.7), which is what servers send. */
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * The wait a `Retry-After` value asks for, in milliseconds: delay-seconds or an HTTP date
 * (RFC 9110 10.2.3). Undefined when absent or unreadable; never negative.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  const text = value?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  return IMF_FIXDATE.test(text) ? Math.max(0, Date.parse(text) - now) : undefined;
}
