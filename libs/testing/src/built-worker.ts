import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './source-process';

/** The built worker entry point; `npm test` builds before Jest runs. */
export const BUILT_WORKER = join(PROJECT_ROOT, 'dist/apps/worker/src/main.js');

const READY_WITHIN_MS = 30_000;

export interface RunningWorker {
  process: ChildProcessWithoutNullStreams;
  /** Every JSON log line so far. */
  logs: string[];
  /** SIGTERM, and the exit code once it ends. */
  terminate(): Promise<number | null>;
  /** SIGKILL: the process ends at once, jobs in flight and all (with `processGroup`, its whole group). */
  kill(): Promise<void>;
}

export interface BuiltWorkerOptions {
  /**
   * Runs the worker as the leader of a process group of its own, so that `kill` SIGKILLs the
   * group: nothing it may have started outlives it, as when a container or node dies.
   */
  processGroup?: boolean;
  /** Another build's worker entry point (the benchmark's comparison), instead of this build's. */
  entry?: string;
  /** The Node binary to run it on (this one's by default). */
  node?: string;
}

/**
 * Starts the built worker as operators do, with the environment alone (the run's settings plus
 * `env`), and resolves once it logs that it is ready.
 */
export async function startBuiltWorker(env: NodeJS.ProcessEnv = {}, options: BuiltWorkerOptions = {}): Promise<RunningWorker> {
  const entry = options.entry ?? BUILT_WORKER;
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build`);
  const processGroup = options.processGroup === true;
  const child = spawn(options.node ?? process.execPath, [entry], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env },
    detached: processGroup,
  });
  const logs: string[] = [];
  let buffer = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the worker was not ready within ${READY_WITHIN_MS} ms`)), READY_WITHIN_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines.filter((candidate) => candidate.startsWith('{'))) {
        logs.push(line);
        if ((JSON.parse(line) as { msg?: string }).msg === 'Worker ready') {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited with ${code} before it was ready`));
    });
  });
  child.stderr.resume();
  const ended = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const worker: RunningWorker = {
    process: child,
    logs,
    terminate: async () => {
      if (ended()) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
    kill: async () => {
      if (ended()) return;
      const exited = once(child, 'exit');
      if (processGroup && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await ready;
  } catch (error) {
    await worker.kill();
    throw error;
  }
  return worker;
}
