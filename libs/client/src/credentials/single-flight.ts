/**
 * A function that runs `task` at most once at a time: calls made while a run is under way share
 * its outcome. Concurrent 401s thereby cause one refresh, not one each (a second refresh with
 * the same rotated token would count as reuse and revoke the whole login).
 */
export function singleFlight<T>(task: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  return () => {
    running ??= task().finally(() => {
      running = null;
    });
    return running;
  };
}
