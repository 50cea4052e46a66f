/**
 * Imported first by main.ts: the HTTP instrumentation patches http as it is required, so tracing
 * starts before anything requires it. Off unless an OTLP endpoint is set.
 */
import { startTracing } from '@app/telemetry/tracing';
import { redactUrl } from './logging/log-redaction';

// Read from the environment before the configuration is loaded; AppConfig refuses a value other than true or false.
startTracing({ serviceName: 'rms-api', redactUrl, trustInboundContext: process.env.TRACE_TRUST_INBOUND === 'true' });
