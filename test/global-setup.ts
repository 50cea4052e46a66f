import 'tsconfig-paths/register';
import 'reflect-metadata';
import { createTestEnvironment } from '@app/testing/test-environment';

export default async function globalSetup(): Promise<void> {
  await createTestEnvironment();
}
