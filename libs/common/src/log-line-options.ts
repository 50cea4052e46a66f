import pino, { DestinationStream, LoggerOptions } from 'pino';
import pretty from 'pino-pretty';

/** The JSON line shape every process logs in, told apart by `service`. */
export function logLineOptions(service: 'api' | 'worker', level: string, env: string): LoggerOptions {
  return {
    level,
    base: { service, env, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
}

export type LogFormat = 'json' | 'pretty';

/**
 * Where log lines go: JSON lines to stdout or, for a person at a terminal, pino-pretty's
 * coloured lines. The API buffers its JSON lines (a synchronous write per line costs more than
 * the request it describes); the buffer goes out once it holds 4 KiB, at least every half second,
 * and when the process stops. The worker, whose lines are few, writes each at once.
 */
export function logDestination(format: LogFormat, buffered: boolean): DestinationStream {
  if (format === 'pretty') return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,env' });
  return pino.destination(buffered ? { dest: 1, sync: false, minLength: 4096, periodicFlush: 500 } : { dest: 1, sync: true });
}
