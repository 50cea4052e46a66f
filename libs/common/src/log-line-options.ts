import pino, { DestinationStream, LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import { isoTimeField } from './iso-time-field';
import { LineBatchDestination } from './line-batch-destination';

/**
 * The two settings that say where a process runs: `app_env` (APP_ENV, `test` or `live`: whose
 * credentials it takes) and `node_env` (NODE_ENV: development, production or test). They vary
 * independently, so each line names both: a development machine runs `app_env: test` too.
 */
export interface LogEnvironment {
  app_env: string;
  node_env: string;
}

/** The JSON line shape every process logs in, told apart by `service`. */
export function logLineOptions(service: 'api' | 'worker', level: string, environment: LogEnvironment): LoggerOptions {
  return {
    level,
    base: { service, ...environment, pid: process.pid },
    timestamp: isoTimeField,
    formatters: { level: (label: string) => ({ level: label }) },
  };
}

export type LogFormat = 'json' | 'pretty';

/**
 * Where log lines go: JSON lines to stdout or, for a person at a terminal, pino-pretty's
 * coloured lines. The API buffers its JSON lines (a write per line costs more than the request
 * it describes): the buffer goes out once it holds 4 KiB, at least every half second, and when
 * the process exits. It goes out synchronously: handing each write to libuv's thread pool cost
 * the request thread twice what the write itself does. The worker, whose lines are few, writes
 * each at once.
 */
export function logDestination(format: LogFormat, buffered: boolean): DestinationStream {
  if (format === 'pretty') return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,app_env,node_env' });
  const stdout = pino.destination({ dest: 1, sync: true });
  if (!buffered) return stdout;
  const destination = new LineBatchDestination(stdout, 4096, 500);
  flushOnExit(destination);
  return destination;
}

/** Buffered destinations to flush when the process exits, held weakly as pino holds its own. */
const flushedOnExit = new Set<WeakRef<LineBatchDestination>>();

/**
 * pino flushes a buffer on exit only for asynchronous destinations. One listener for the process,
 * however many apps it builds (the tests build many): each destination is dropped with its app.
 */
function flushOnExit(destination: LineBatchDestination): void {
  if (flushedOnExit.size === 0) {
    process.once('exit', () => {
      for (const held of flushedOnExit) held.deref()?.flushSync();
    });
  }
  flushedOnExit.add(new WeakRef(destination));
}
