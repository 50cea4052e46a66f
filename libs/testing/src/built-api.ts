import { ChildProcess, spawn, StdioOptions } from 'node:child_process';
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

interface ApiLaunch {
  args: string[];
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  stopSignal: NodeJS.Signals;
  startupTimeoutMs: number;
}

/** Spawns an API process on a free port and resolves once `/health/live` answers 200. */
async function launchApi(launch: ApiLaunch): Promise<RunningApi> {
  const port = await freePort();
  const child = spawn(process.execPath, launch.args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(port), ...launch.env },
    stdio: launch.stdio,
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(launch.stopSignal);
    await exited;
  };
  const deadline = Date.now() + launch.startupTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the API on port ${port} exited with ${child.exitCode} before it listened`);
    const live = await fetch(`${url}/health/live`).catch(() => undefined);
    if (live?.status === 200) return { url, process: child, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`the API on port ${port} did not listen within ${launch.startupTimeoutMs} ms`);
}

/**
 * Starts the built API as operators do, with the environment alone (the run's settings plus
 * `env`), and resolves once `/health/live` answers; `onStdout` receives its output as it comes.
 */
export async function startBuiltApi(env: NodeJS.ProcessEnv = {}, onStdout?: (chunk: string) => void): Promise<RunningApi> {
  if (!existsSync(BUILT_API)) throw new Error(`${BUILT_API} is missing: run npm run build`);
  const stdio: StdioOptions = onStdout ? ['ignore', 'pipe', 'ignore'] : 'ignore';
  const api = await launchApi({ args: [BUILT_API], env, stdio, stopSignal: 'SIGKILL', startupTimeoutMs: 30_000 });
  if (onStdout) api.process.stdout?.setEncoding('utf8').on('data', onStdout);
  return api;
}

/**
 * Starts one more built API process, with the run's database and Redis plus `env`:
 * replicas of one deployment, for what must hold across them. `stop` ends it as an
 * orchestrator does (SIGTERM).
 */
export async function startApiReplica(env: NodeJS.ProcessEnv = {}): Promise<RunningApi> {
  return launchApi({
    args: [BUILT_API],
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
    stopSignal: 'SIGTERM',
    startupTimeoutMs: 120_000,
  });
}
