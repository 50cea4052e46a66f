import { startBuiltApi, RunningApi } from './built-api';
import { RunningWorker, startBuiltWorker } from './built-worker';
import { createSuiteEnvironment, SuiteEnvironment } from './test-environment';

/** Where the api tier's shared API runs, set by its global setup for the suites that use it. */
export const TIER_API_URL = 'TIER_API_URL';
export const TIER_DATABASE_URL = 'TIER_DATABASE_URL';

export interface TierServices {
  api: RunningApi;
  worker: RunningWorker;
  stop(): Promise<void>;
}

/**
 * One built API and one built worker for the whole api tier, on a database and Redis prefix of
 * their own: the suites that speak only HTTP are their clients, each with fresh accounts, while
 * the suites that build the app in-process keep the run's database, where no worker relays.
 */
export async function startTierServices(): Promise<TierServices> {
  const environment: SuiteEnvironment = await createSuiteEnvironment('tier');
  const [started, ready] = await Promise.allSettled([startBuiltApi(environment.env), startBuiltWorker(environment.env)]);
  if (started.status === 'rejected' || ready.status === 'rejected') {
    // One of them failed to start: the other must not outlive the run.
    await Promise.all([started.status === 'fulfilled' && started.value.stop(), ready.status === 'fulfilled' && ready.value.kill()]);
    await environment.destroy();
    throw started.status === 'rejected' ? started.reason : (ready as PromiseRejectedResult).reason;
  }
  const [api, worker] = [started.value, ready.value];
  Object.assign(process.env, { [TIER_API_URL]: api.url, [TIER_DATABASE_URL]: environment.env.DATABASE_URL });
  return {
    api,
    worker,
    stop: async () => {
      await Promise.all([api.stop(), worker.terminate()]);
      await environment.destroy();
    },
  };
}
