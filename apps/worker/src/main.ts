import '@app/config/require-supported-runtime';
import './tracing';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { NestPinoLogger } from '@app/common';
import { loadConfig } from '@app/config';
import { prepareDatabase } from '@app/database';
import { stopTracing } from '@app/telemetry';
import { WorkerHeartbeat } from './worker-heartbeat.service';
import { WorkerModule } from './worker.module';

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

async function bootstrap(): Promise<void> {
  // Migrations first, under the advisory lock that replicas starting together share.
  await prepareDatabase(loadConfig());
  const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true, abortOnError: false });
  const logger = app.get(NestPinoLogger);
  app.useLogger(logger);

  // Our own handler rather than enableShutdownHooks(): Nest re-raises the signal after
  // closing, which would end the process with 143 instead of a clean 0.
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received, finishing jobs in flight`, 'Worker');
    // The SDK last: closing still ends spans (jobs in flight) that it must export.
    app.close().then(stopTracing).then(
      () => {
        logger.log('Worker stopped', 'Worker');
        process.exit(0);
      },
      (error: Error) => {
        logger.error(error, 'Worker');
        process.exit(1);
      },
    );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);

  logger.log({ heartbeat: app.get(WorkerHeartbeat).key }, 'Worker ready', 'Worker');
}

bootstrap().catch((error: Error) => {
  process.stderr.write(`Worker failed to start: ${error.message}\n`);
  process.exit(1);
});
