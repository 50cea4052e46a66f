import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { RunningApi } from './built-api';
import { freePort } from './private-servers';
import { FROM_SOURCE, PROJECT_ROOT } from './source-process';

const STARTUP_TIMEOUT_MS = 120_000;

/**
 * Starts one more API process from source, with the run's database and Redis plus `env`, and
 * resolves once `/health/live` answers: replicas of one deployment, for what must hold across
 * them. `stop` ends it as an orchestrator does (SIGTERM).
 */
export async function startApiReplica(env: NodeJS.ProcessEnv = {}): Promise<RunningApi> {
  const port = await freePort();
  const child = spawn(process.execPath, [...FROM_SOURCE, 'apps/api/src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The replica on port ${port} exited with ${child.exitCode}.`);
    const live = await fetch(`${url}/health/live`).catch(() => undefined);
    if (live) return { url, process: child, stop };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`The replica on port ${port} did not start.`);
}
