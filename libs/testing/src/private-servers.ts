import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo, createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { waitUntil } from './wait-until';

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

/** Waits until `child` listens on `port`; the error when it exits first (`output` says why) or never listens. */
async function listeningOrFailure(child: ChildProcess, port: number, name: string, output: () => string): Promise<Error | undefined> {
  const exitedEarly = once(child, 'exit').then(
    ([code]) => new Error(`${name} exited with ${String(code)} before listening:\n${output()}`),
    (error: Error) => error,
  );
  const listening = waitForPort(port).then(
    () => undefined,
    (error: Error) => error,
  );
  return Promise.race([listening, exitedEarly]);
}

/** Stops a server process at once (SIGTERM) and removes its temporary folder. */
async function stopAndRemove(child: ChildProcess, root: string): Promise<void> {
  const running = child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  if (running) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(root, { recursive: true, force: true });
}

/**
 * A redis-server of the test's own, on a spare port, that the test may stop or freeze without
 * touching the machine's shared one.
 */
export class PrivateRedis {
  private constructor(
    readonly port: number,
    private process: ChildProcess,
    private readonly password?: string,
  ) {}

  /** With a `password`, it answers only clients that authenticate with it (`--requirepass`). */
  static async start(password?: string): Promise<PrivateRedis> {
    const port = await freePort();
    const server = new PrivateRedis(port, PrivateRedis.spawn(port, password), password);
    await waitForPort(port);
    return server;
  }

  private static spawn(port: number, password?: string): ChildProcess {
    const requirePass = password === undefined ? [] : ['--requirepass', password];
    return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...requirePass], {
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
    this.process = PrivateRedis.spawn(this.port, this.password);
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

/** The processes whose parent is `parent`, read from /proc. */
function childProcesses(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command name, which may hold spaces and parentheses: state, then the parent's pid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) children.push(Number(entry));
    } catch {
      // the process ended while the list was read
    }
  }
  return children;
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

  /** Freezes the cluster (SIGSTOP to the postmaster and its processes): connections stay open, nothing answers. */
  freeze(): void {
    this.signalCluster('SIGSTOP');
  }

  thaw(): void {
    this.signalCluster('SIGCONT');
  }

  private signalCluster(signal: NodeJS.Signals): void {
    const postmaster = Number(readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, signal);
    for (const pid of childProcesses(postmaster)) {
      try {
        process.kill(pid, signal);
      } catch (error) {
        // A backend that ended since the list was read has nothing left to signal.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
  }

  /** Starts the stopped cluster again, on the same port and with the same data. */
  async startAgain(): Promise<void> {
    this.startServer();
    await waitForPort(this.port);
  }

  /**
   * A crash and restart: stops the cluster at once (immediate mode, no checkpoint), waits
   * `downMs`, and starts it again on the same port with the same data, resolving once it listens.
   */
  async restart(downMs: number): Promise<void> {
    this.stop();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.startAgain();
  }

  /** Stops the cluster when it still runs (frozen or not) and removes its folder. */
  destroy(): void {
    // Each on its own: a thaw that fails (the postmaster already gone) must not skip the stop.
    for (const step of [() => this.thaw(), () => this.stop()]) {
      try {
        step();
      } catch {
        // already thawed, or already stopped
      }
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A program of PATH, or of the sbin folders Debian puts daemons in (often outside PATH); undefined when not installed. */
function installedProgram(name: string): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin'].filter((folder) => folder !== '');
  return folders.map((folder) => join(folder, name)).find((candidate) => existsSync(candidate));
}

/** The pgbouncer program, or undefined when it is not installed. */
export function pgbouncerBinary(): string | undefined {
  return installedProgram('pgbouncer');
}

/**
 * A PgBouncer of the test's own in transaction mode, on a spare port, in front of a PostgreSQL
 * server: each database of the server under its own name, `poolSize` server connections for each.
 * Its configuration, user list and log live in a temporary folder.
 */
export class PrivatePgBouncer {
  private constructor(
    readonly port: number,
    private readonly user: string,
    private readonly process: ChildProcess,
    private readonly root: string,
  ) {}

  /** `server` is a postgres:// URL of the server; its user (and password, if any) is the one PgBouncer admits. */
  static async start(server: string, poolSize = 3): Promise<PrivatePgBouncer> {
    const binary = pgbouncerBinary();
    if (!binary) throw new Error('pgbouncer is not installed (scripts/services.sh installs it when it runs as root with apt-get)');
    const target = new URL(server);
    const user = decodeURIComponent(target.username || 'postgres');
    const port = await freePort();
    const root = mkdtempSync(join(tmpdir(), 'rms-pgbouncer-'));
    const logFile = join(root, 'pgbouncer.log');
    const configFile = join(root, 'pgbouncer.ini');
    // Trust still admits only the users of auth_file; the password is what PgBouncer gives the server.
    writeFileSync(join(root, 'userlist.txt'), `"${user}" "${decodeURIComponent(target.password)}"\n`);
    writeFileSync(
      configFile,
      [
        '[databases]',
        `* = host=${target.hostname} port=${target.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(root, 'userlist.txt')}`,
        'pool_mode = transaction',
        // As deploy/kubernetes/pgbouncer.yaml: past the service's statement timeouts, for a server that stops answering.
        'query_timeout = 5',
        `default_pool_size = ${poolSize}`,
        'max_client_conn = 1000',
        `logfile = ${logFile}`,
        `admin_users = ${user}`,
        '',
      ].join('\n'),
    );
    // PgBouncer refuses to run as root: it then runs as postgres, which must read and write the folder.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) execFileSync('chown', ['-R', 'postgres', root]);
    const child = spawn(binary, asRoot ? ['-u', 'postgres', configFile] : [configFile], { stdio: 'ignore' });
    const bouncer = new PrivatePgBouncer(port, user, child, root);
    const failure = await listeningOrFailure(child, port, 'pgbouncer', () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''));
    if (failure) {
      await bouncer.stop();
      throw failure;
    }
    return bouncer;
  }

  /** The URL of one database of the server, through this PgBouncer. */
  url(database: string): string {
    return `postgres://${encodeURIComponent(this.user)}@127.0.0.1:${this.port}/${encodeURIComponent(database)}`;
  }

  /** The process ids, on the server, of the connections PgBouncer holds there (its console's SHOW SERVERS). */
  async serverPids(): Promise<number[]> {
    const admin = new Client({ connectionString: this.url('pgbouncer') });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ remote_pid: string }>('SHOW SERVERS');
      return rows.map((row) => Number(row.remote_pid));
    } finally {
      await admin.end();
    }
  }

  /** Stops it at once (SIGTERM: immediate shutdown) and removes its folder. */
  stop(): Promise<void> {
    return stopAndRemove(this.process, this.root);
  }
}

/** The haproxy program, or undefined when it is not installed. */
export function haproxyBinary(): string | undefined {
  return installedProgram('haproxy');
}

/**
 * How often HAProxy checks each server's readiness, and after how many failed or good checks it
 * takes it out or back. A check unanswered within 2 s fails.
 */
export interface HaproxyChecks {
  interval: string;
  fall: number;
  rise: number;
}

/** Every 200 ms, out at the first failure: a test that stops a replica sees it taken out at once. */
export const FAST_HAPROXY_CHECKS: HaproxyChecks = { interval: '200ms', fall: 1, rise: 1 };

/** As docs/operations.md tells operators: every 2 s, out after 2 failures, back after 2 good checks. */
export const OPERATOR_HAPROXY_CHECKS: HaproxyChecks = { interval: '2s', fall: 2, rise: 2 };

/** HAProxy lost its spare port to another process before it could bind it. */
class PortTakenError extends Error {}

/**
 * An HAProxy of the test's own on a spare port, in front of HTTP servers on 127.0.0.1 as an
 * operator puts a load balancer in front of API replicas: round robin; each server checked at
 * `GET /health/ready` as `checks` says; a request whose connection failed, or that got no answer
 * at all, sent again up to 3 times, to another server. Its configuration and runtime socket live
 * in a temporary folder.
 */
export class PrivateHaproxy {
  private constructor(
    readonly port: number,
    private readonly servers: number,
    private readonly process: ChildProcess,
    private readonly root: string,
  ) {}

  /** `serverPorts` are the ports of the servers, named `server1`, `server2`, ... in that order. */
  static async start(serverPorts: number[], checks: HaproxyChecks = FAST_HAPROXY_CHECKS): Promise<PrivateHaproxy> {
    const binary = haproxyBinary();
    if (!binary) throw new Error('haproxy is not installed');
    // The spare port is free when chosen, not when HAProxy binds it: a suite running beside this one
    // may take it first, and the port then answers for another process while HAProxy has exited.
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await PrivateHaproxy.startOnce(binary, serverPorts, checks);
      } catch (error) {
        if (!(error instanceof PortTakenError) || attempt === 3) throw error;
      }
    }
  }

  private static async startOnce(binary: string, serverPorts: number[], checks: HaproxyChecks): Promise<PrivateHaproxy> {
    const port = await freePort();
    const root = mkdtempSync(join(tmpdir(), 'rms-haproxy-'));
    const configFile = join(root, 'haproxy.cfg');
    writeFileSync(
      configFile,
      [
        'global',
        `  stats socket ${join(root, 'admin.sock')} mode 600 level admin`,
        'defaults',
        '  mode http',
        '  timeout connect 1s',
        '  timeout client 30s',
        '  timeout server 30s',
        // Without it a check times out at its interval: a slow 200 under load would take a serving replica out.
        '  timeout check 2s',
        '  retries 3',
        '  retry-on conn-failure empty-response',
        '  option redispatch 1',
        'frontend api',
        `  bind 127.0.0.1:${port}`,
        '  default_backend replicas',
        'backend replicas',
        '  balance roundrobin',
        '  option httpchk GET /health/ready',
        `  default-server inter ${checks.interval} fall ${checks.fall} rise ${checks.rise}`,
        ...serverPorts.map((serverPort, index) => `  server server${index + 1} 127.0.0.1:${serverPort} check`),
        '',
      ].join('\n'),
    );
    let errors = '';
    const child = spawn(binary, ['-db', '-f', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    const haproxy = new PrivateHaproxy(port, serverPorts.length, child, root);
    const failure = await listeningOrFailure(child, port, 'haproxy', () => errors);
    if (failure) {
      await haproxy.stop();
      throw failure;
    }
    // Its runtime socket answers once it has started; an HAProxy that lost its port exits instead.
    const started = await waitUntil(
      async () => {
        if (child.exitCode !== null) return false;
        return haproxy.serverStatuses().then(
          () => true,
          () => undefined,
        );
      },
      10_000,
      20,
    );
    if (!started) {
      await haproxy.stop();
      throw new PortTakenError(`haproxy exited after port ${port} answered for another process:\n${errors}`);
    }
    return haproxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Each server's status as HAProxy's checks last found it (`UP`, `DOWN`, ...), by server name. */
  async serverStatuses(): Promise<Record<string, string>> {
    const socket = createConnection({ path: join(this.root, 'admin.sock') });
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    await once(socket, 'connect');
    socket.end('show stat\n');
    await once(socket, 'close');
    const [header, ...rows] = answer.trim().split('\n');
    const columns = header.replace(/^# /, '').split(',');
    const [proxy, server, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
    return Object.fromEntries(
      rows
        .map((row) => row.split(','))
        .filter((fields) => fields[proxy] === 'replicas' && !['FRONTEND', 'BACKEND'].includes(fields[server]))
        .map((fields) => [fields[server], fields[status]]),
    );
  }

  /** Waits until its checks find every server up. */
  async allInService(timeoutMs = 30_000): Promise<void> {
    await waitUntil(
      async () => {
        const statuses = Object.values(await this.serverStatuses());
        return (statuses.length === this.servers && statuses.every((status) => status === 'UP')) || undefined;
      },
      timeoutMs,
      100,
    );
  }

  /** Stops it at once (SIGTERM: hard stop) and removes its folder. */
  stop(): Promise<void> {
    return stopAndRemove(this.process, this.root);
  }
}
