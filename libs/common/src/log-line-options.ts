import pino, { LoggerOptions } from 'pino';

/** The JSON line shape every process logs in, told apart by `service`. */
export function logLineOptions(service: 'api' | 'worker', level: string, env: string): LoggerOptions {
  return {
    level,
    base: { service, env, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
}
