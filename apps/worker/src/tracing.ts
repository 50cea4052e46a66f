/**
 * Imported first by main.ts: the instrumentations patch http, pg and ioredis as they are
 * required, so tracing starts before anything requires them. Off unless an OTLP endpoint is set.
 */
import { startTracing } from '@app/telemetry/tracing';

startTracing({ serviceName: 'rms-worker' });
