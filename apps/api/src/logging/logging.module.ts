import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { NestPinoLogger } from '@app/common';
import { AppConfig } from '@app/config';
import { requestLogContext } from './request-context';
import { createRootLogger, LOG_OUTPUT, LogOutput, ROOT_LOGGER } from './root-logger';

/** How long a buffered log line may wait for the buffer to fill before it is written anyway. */
export const LOG_FLUSH_INTERVAL_MS = 500;

/**
 * Writes out the buffered log lines every half second, so that a quiet API's lines reach stdout
 * promptly rather than when 4 KiB have gathered, and once more when the application stops.
 */
@Injectable()
class LogFlush implements OnModuleInit, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(@Inject(ROOT_LOGGER) private readonly root: Logger) {}

  onModuleInit(): void {
    this.timer = setInterval(() => this.root.flush(), LOG_FLUSH_INTERVAL_MS).unref();
  }

  onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    return new Promise((resolve) => this.root.flush(() => resolve()));
  }
}

/**
 * Structured JSON logs through pino: the root logger, and Nest's logger on it, whose lines
 * carry the id of the request they were written in. The HTTP request logger is mounted by
 * `createApiApp()` as early express middleware. The output is a parameter so that tests can
 * capture the lines.
 */
@Module({})
export class LoggingModule {
  static forRoot(output: LogOutput = {}): DynamicModule {
    return {
      module: LoggingModule,
      global: true,
      providers: [
        { provide: LOG_OUTPUT, useValue: output },
        {
          provide: ROOT_LOGGER,
          inject: [AppConfig, LOG_OUTPUT],
          useFactory: createRootLogger,
        },
        {
          provide: NestPinoLogger,
          inject: [ROOT_LOGGER],
          useFactory: (root: Logger) => new NestPinoLogger(root, () => requestLogContext.getStore()),
        },
        LogFlush,
      ],
      exports: [ROOT_LOGGER, NestPinoLogger],
    };
  }
}
