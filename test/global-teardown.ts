import 'tsconfig-paths/register';
import { destroyTestEnvironment, findLeftoverProcesses } from '@app/testing/test-environment';

/** Drops the run's database and keys; a process a test started and left running fails the run. */
export default async function globalTeardown(): Promise<void> {
  const leftovers = await findLeftoverProcesses(process.env.REDIS_PREFIX ?? '');
  for (const leftover of leftovers) process.kill(leftover.pid, 'SIGKILL');
  await destroyTestEnvironment();
  if (leftovers.length > 0) {
    const list = leftovers.map((leftover) => `  ${leftover.pid} ${leftover.command}`).join('\n');
    throw new Error(`Processes started by the tests outlived them (now killed):\n${list}`);
  }
}
