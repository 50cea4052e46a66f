/**
 * Imported first by main.ts: the HTTP instrumentation patches http as it is required, so tracing
 * starts before anything requires it. Off unless an OTLP endpoint is set.
 */
import { startTracing } from '@app/telemetry/tracing';

startTracing({ serviceName: 'rms-worker' });
