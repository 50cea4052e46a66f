import type { LoggerService } from '@nestjs/common';
import type { Level, Logger } from 'pino';

/**
 * Nest's start-up detail, a line per module (InstanceLoader) and per controller and route
 * (RoutesResolver, RouterExplorer): written at debug, so that info shows what an operator needs.
 */
const START_UP_DETAIL = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Fields every line written now should carry (the API adds the current request's id). */
export type LineBindings = () => object | undefined;

const noBindings: LineBindings = () => undefined;

/**
 * Nest's logger interface on a pino logger. Nest's convention is kept: the last extra argument
 * is the context (`new Logger('Webhooks')`), an object first argument is merged into the line,
 * an Error first argument becomes `err`.
 */
export class NestPinoLogger implements LoggerService {
  constructor(
    readonly root: Logger,
    private readonly bindings: LineBindings = noBindings,
  ) {}

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.write('trace', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.write('debug', message, optionalParams);
  }

  log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    this.write(typeof context === 'string' && START_UP_DETAIL.has(context) ? 'debug' : 'info', message, optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.write('warn', message, optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.write('error', message, optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.write('fatal', message, optionalParams);
  }

  private write(level: Level, message: unknown, optionalParams: unknown[]): void {
    if (!this.root.isLevelEnabled(level)) return;
    const line: Record<string, unknown> = { ...this.bindings() };
    const params = [...optionalParams];
    if (params.length > 0) line.context = params.pop();
    if (message instanceof Error) {
      this.root[level]({ ...line, err: message }, ...stringParams(params));
    } else if (typeof message === 'object' && message !== null) {
      this.root[level]({ ...line, ...message }, ...stringParams(params));
    } else if (isStackOfNestsExceptionHandler(level, message, params)) {
      // Nest's own exception handlers call error(message, stack[, context]).
      const err = new Error(String(message));
      err.stack = params[0];
      this.root[level]({ ...line, err });
    } else {
      this.root[level](line, String(message), ...params);
    }
  }
}

function stringParams(params: unknown[]): [string?, ...unknown[]] {
  if (params.length === 0) return [];
  const [first, ...rest] = params;
  return [String(first), ...rest];
}

function isStackOfNestsExceptionHandler(level: Level, message: unknown, params: unknown[]): params is [string] {
  return level === 'error' && typeof message === 'string' && params.length === 1 && typeof params[0] === 'string' && /\n\s*at /.test(params[0]);
}
