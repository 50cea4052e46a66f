import pino, { DestinationStream, LevelWithSilent, Logger } from 'pino';
import { logDestination, logLineOptions } from '@app/common';
import { AppConfig } from '@app/config';
import { withTraceFields } from '@app/telemetry';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');
export const LOG_OUTPUT = Symbol('LOG_OUTPUT');

/** Where the logs go and from which level; both default to stdout and `LOG_LEVEL`. */
export interface LogOutput {
  destination?: DestinationStream;
  level?: LevelWithSilent;
}

/** The error serializer, minus SQL parameters: they may hold credential hashes or personal data. */
function serializeError(error: Error): Record<string, unknown> {
  const serialized: Record<string, unknown> = { ...pino.stdSerializers.err(error) };
  delete serialized.parameters;
  delete serialized.driverError;
  return serialized;
}

/**
 * The one pino instance of the process; HTTP request loggers and Nest's logger are its children.
 * With tracing on, every line also carries the `trace_id` and `span_id` it was written in.
 */
export function createRootLogger(config: AppConfig, output: LogOutput): Logger {
  const options = withTraceFields({
    ...logLineOptions('api', output.level ?? config.LOG_LEVEL, config.logEnvironment),
    serializers: { err: serializeError },
  });
  return pino(options, output.destination ?? logDestination(config.logFormat, true));
}
