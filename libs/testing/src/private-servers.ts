import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { AddressInfo, createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPort(port: number, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

/**
 * A redis-server of the test's own, on a spare port, that the test may stop or freeze without
 * touching the machine's shared one.
 */
export class PrivateRedis {
  private constructor(
    readonly port: number,
    private process: ChildProcess,
  ) {}

  static async start(): Promise<PrivateRedis> {
    const port = await freePort();
    const server = new PrivateRedis(port, PrivateRedis.spawn(port));
    await waitForPort(port);
    return server;
  }

  private static spawn(port: number): ChildProcess {
    return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** SIGSTOP: the port stays open and connections stay up, but nothing is answered. */
  freeze(): void {
    this.process.kill('SIGSTOP');
  }

  thaw(): void {
    this.process.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.thaw();
    const exited = once(this.process, 'exit');
    this.process.kill('SIGKILL');
    await exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    this.process = PrivateRedis.spawn(this.port);
    await waitForPort(this.port);
  }
}

function postgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((version) => join(root, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
  if (!found) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) are not installed under /usr/lib/postgresql');
  return found;
}

/** Runs a PostgreSQL binary as the `postgres` account when the tests run as root (initdb refuses root). */
function runPostgresTool(tool: string, args: string[]): void {
  const command = join(postgresBinaries(), tool);
  if (process.getuid?.() === 0) execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'ignore' });
  else execFileSync(command, args, { stdio: 'ignore' });
}

/** A PostgreSQL cluster of the test's own (trust auth), on a spare port, in a temporary folder. */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    private readonly dataDir: string,
    private readonly root: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const root = mkdtempSync(join(tmpdir(), 'rms-pg-'));
    chmodSync(root, 0o755);
    const dataDir = join(root, 'data');
    if (process.getuid?.() === 0) {
      execFileSync('install', ['-d', '-o', 'postgres', '-g', 'postgres', '-m', '700', dataDir]);
      chownSync(root, Number(execFileSync('id', ['-u', 'postgres']).toString()), 0);
    }
    runPostgresTool('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    const server = new PrivatePostgres(await freePort(), dataDir, root);
    server.startServer();
    await waitForPort(server.port);
    return server;
  }

  private startServer(): void {
    const options = `-p ${this.port} -k ${this.root} -c listen_addresses=127.0.0.1 -c fsync=off`;
    runPostgresTool('pg_ctl', ['-D', this.dataDir, '-o', options, '-l', join(this.root, 'server.log'), '-w', 'start']);
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}`;
  }

  stop(): void {
    runPostgresTool('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
  }

  /** Stops the cluster when it still runs and removes its folder. */
  destroy(): void {
    try {
      this.stop();
    } catch {
      // already stopped
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}
