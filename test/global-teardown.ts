import 'tsconfig-paths/register';
import { destroyTestEnvironment } from '@app/testing/test-environment';

export default async function globalTeardown(): Promise<void> {
  await destroyTestEnvironment();
}
