import 'tsconfig-paths/register';
import globalTeardown from './global-teardown';

/** Stops the tier's API and worker and drops their database, then the run's own teardown. */
export default async function apiTierGlobalTeardown(): Promise<void> {
  await globalThis.apiTierServices?.stop();
  await globalTeardown();
}
