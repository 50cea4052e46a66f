import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown, RequestMethod } from '@nestjs/common';
import { LoggerModule, Params } from 'nestjs-pino';
import type { Logger } from 'pino';
import { AppConfig } from '@app/config';
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
 * Structured JSON logs through pino. The HTTP request logger is mounted by `createApiApp()`
 * as early express middleware (`useExisting`), so nestjs-pino only binds each request's logger
 * for Nest's own logs. The output is a parameter so that tests can capture the lines.
 */
@Module({})
export class LoggingModule {
  static forRoot(output: LogOutput = {}): DynamicModule {
    return {
      module: LoggingModule,
      global: true,
      imports: [
        LoggerModule.forRootAsync({
          inject: [ROOT_LOGGER],
          useFactory: (root: Logger): Params => ({
            pinoHttp: { logger: root },
            useExisting: true,
            forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
          }),
        }),
      ],
      providers: [
        { provide: LOG_OUTPUT, useValue: output },
        {
          provide: ROOT_LOGGER,
          inject: [AppConfig, LOG_OUTPUT],
          useFactory: createRootLogger,
        },
        LogFlush,
      ],
      exports: [ROOT_LOGGER],
    };
  }
}
