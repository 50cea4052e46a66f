import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync } from 'node:fs';
import { BUILT_API } from './built-api';
import { freePort } from './private-servers';
import { PROJECT_ROOT } from './source-process';
import { waitUntil } from './wait-until';

export interface BuiltApiReplicaOptions {
  /** The replica's settings beside the run's own (process.env); PORT is the replica's. */
  env?: NodeJS.ProcessEnv;
  /** Node flags before the entry point, e.g. those of `npm run start:api`. */
  nodeFlags?: readonly string[];
  /** Where its stdout and stderr are appended; unset, they are dropped. */
  logFile?: string;
  /** How long a start may take before `/health/ready` answers 200. */
  readyWithinMs?: number;
}

/**
 * One built API process on a port that stays its own across restarts, as a load balancer's
 * configuration names a replica: started, stopped with SIGTERM as an orchestrator stops it, and
 * started again on the same port. It leads a process group of its own, so that `kill` leaves
 * nothing of it running.
 */
export class BuiltApiReplica {
  private process?: ChildProcess;

  constructor(
    readonly port: number,
    private readonly options: BuiltApiReplicaOptions = {},
  ) {}

  /** A replica on a port no other server listens on now. */
  static async onFreePort(options: BuiltApiReplicaOptions = {}): Promise<BuiltApiReplica> {
    return new BuiltApiReplica(await freePort(), options);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Whether its process runs now. */
  get running(): boolean {
    return this.process !== undefined && this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Starts the process (again, after a stop), resolving once `/health/ready` answers 200. */
  async start(): Promise<void> {
    if (!existsSync(BUILT_API)) throw new Error(`${BUILT_API} is missing: run npm run build`);
    if (this.running) throw new Error(`the replica on port ${this.port} runs already`);
    const log = this.options.logFile === undefined ? undefined : openSync(this.options.logFile, 'a');
    const started = spawn(process.execPath, [...(this.options.nodeFlags ?? []), BUILT_API], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...this.options.env, PORT: String(this.port) },
      stdio: log === undefined ? 'ignore' : ['ignore', log, log],
      detached: true,
    });
    if (log !== undefined) closeSync(log);
    this.process = started;
    try {
      await waitUntil(
        async () => {
          if (started.exitCode !== null || started.signalCode !== null) {
            throw new Error(`the replica on port ${this.port} ended (${started.exitCode ?? started.signalCode}) before it was ready`);
          }
          const ready = await fetch(`${this.url}/health/ready`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
          await ready?.arrayBuffer();
          return ready?.status === 200 ? true : undefined;
        },
        this.options.readyWithinMs ?? 60_000,
        100,
      );
    } catch (error) {
      await this.kill();
      throw error;
    }
  }

  /** SIGTERM, as an orchestrator stops a replica; resolves once the process has ended. */
  async terminate(): Promise<void> {
    const running = this.process;
    if (!running || !this.running) return;
    const exited = once(running, 'exit');
    running.kill('SIGTERM');
    await exited;
  }

  /** SIGKILL of its whole process group, whatever it was doing; resolves once the process has ended. */
  async kill(): Promise<void> {
    const running = this.process;
    if (running?.pid === undefined || !this.running) return;
    const exited = once(running, 'exit');
    try {
      process.kill(-running.pid, 'SIGKILL');
    } catch {
      running.kill('SIGKILL');
    }
    await exited;
  }
}
