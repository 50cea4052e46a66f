/**
 * Polls `read` until it yields a value, for conditions another process brings about (a
 * delivery arriving, a worker finishing); fails after `timeoutMs` rather than hanging.
 */
export async function waitUntil<T>(
  read: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
