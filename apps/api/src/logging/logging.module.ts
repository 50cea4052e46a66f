import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { NestPinoLogger } from '@app/common';
import { AppConfig } from '@app/config';
import { TracingShutdown } from '@app/telemetry';
import { requestLogContext } from './request-context';
import { createRootLogger, LOG_OUTPUT, LogOutput, ROOT_LOGGER } from './root-logger';

/** Writes out the buffered log lines when the application stops. */
@Injectable()
class LogFlush implements OnApplicationShutdown {
  constructor(@Inject(ROOT_LOGGER) private readonly root: Logger) {}

  onApplicationShutdown(): Promise<void> {
    return new Promise((resolve) => this.root.flush(() => resolve()));
  }
}

/**
 * Structured JSON logs through pino: the root logger, and Nest's logger on it, whose lines
 * carry the id of the request they were written in. The HTTP request logger is mounted by
 * `createApiApp()` as early express middleware. The output is a parameter so that tests can
 * capture the lines. It also exports the last spans at shutdown, when tracing is on: the
 * telemetry beside the logs.
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
        TracingShutdown,
      ],
      exports: [ROOT_LOGGER, NestPinoLogger],
    };
  }
}
