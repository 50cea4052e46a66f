import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './private-servers';
import { PROJECT_ROOT } from './source-process';

/** The built API entry point; `npm test` builds before Jest runs. */
export const BUILT_API = join(PROJECT_ROOT, 'dist/apps/api/src/main.js');

export interface RunningApi {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts the built API as operators do, with the environment alone (the run's settings plus
 * `env`), and resolves once `/health/live` answers.
 */
export async function startBuiltApi(env: NodeJS.ProcessEnv = {}): Promise<RunningApi> {
  if (!existsSync(BUILT_API)) throw new Error(`${BUILT_API} is missing: run npm run build`);
  const port = await freePort();
  const child = spawn(process.execPath, [BUILT_API], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(port), ...env },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode} before it listened`);
    const live = await fetch(`${url}/health/live`).catch(() => undefined);
    if (live?.status === 200) return { url, process: child, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error('the API did not listen within 30 s');
}
