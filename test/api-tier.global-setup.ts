import 'tsconfig-paths/register';
import 'reflect-metadata';
import { startTierServices, TierServices } from '@app/testing/tier-services';
import globalSetup from './global-setup';

declare global {
  // Read by the tier's global teardown, which Jest runs in this same process.
  var apiTierServices: TierServices | undefined;
}

/** The run's database and Redis prefix, then the tier's one built API and worker (README, "Tests"). */
export default async function apiTierGlobalSetup(): Promise<void> {
  await globalSetup();
  globalThis.apiTierServices = await startTierServices();
}
