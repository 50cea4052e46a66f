import childProcess from 'node:child_process';
import net from 'node:net';

/**
 * The unit tier does no I/O: a spec that starts a child process, or connects anywhere but to a
 * server it started itself on loopback, fails here at once instead of slowing every unit run.
 * Such a spec belongs to the api or system tier (SERVICE_SPECS or SYSTEM_SPECS in jest.config.js).
 * The patches are undone after each file, as Jest may run another tier's files in this worker.
 */
const MOVE_IT = 'a unit spec does no I/O: list it in SERVICE_SPECS or SYSTEM_SPECS of jest.config.js';
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', undefined]);
/** The run's PostgreSQL, PgBouncer and Redis, which only the api and system tiers set up. */
const SERVICE_PORTS = new Set([5432, 6432, 6379]);

type ConnectArguments = Parameters<net.Socket['connect']>;

function destination(args: ConnectArguments): { host?: string; port?: number } {
  const [first, second] = args as unknown[];
  // net.connect() and createConnection() hand the socket their arguments as one array.
  if (Array.isArray(first)) return destination(first as ConnectArguments);
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: string; port?: number | string; path?: string };
    return options.path ? {} : { host: options.host, port: Number(options.port) };
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    return { port: Number(first), host: typeof second === 'string' ? second : undefined };
  }
  return {};
}

const socketPrototype = net.Socket.prototype;
const originalConnect = Object.getOwnPropertyDescriptor(socketPrototype, 'connect')?.value as net.Socket['connect'];
const refusedConnect = function connect(this: net.Socket, ...args: ConnectArguments): net.Socket {
  const { host, port } = destination(args);
  if (!LOOPBACK.has(host) || (port !== undefined && SERVICE_PORTS.has(port))) {
    throw new Error(`${MOVE_IT} (it connects to ${host ?? '127.0.0.1'}:${port})`);
  }
  return originalConnect.apply(this, args);
} as net.Socket['connect'];

const CHILD_PROCESS_STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
const originalStarters = CHILD_PROCESS_STARTERS.map((name) => [name, childProcess[name]] as const);

socketPrototype.connect = refusedConnect;
for (const name of CHILD_PROCESS_STARTERS) {
  Object.assign(childProcess, {
    [name]: () => {
      throw new Error(`${MOVE_IT} (it starts a child process with ${name})`);
    },
  });
}

afterAll(() => {
  socketPrototype.connect = originalConnect;
  for (const [name, starter] of originalStarters) Object.assign(childProcess, { [name]: starter });
});
