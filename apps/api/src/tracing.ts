/**
 * Imported first by main.ts: the instrumentations patch http, express, pg and ioredis as they are
 * required, so tracing starts before anything requires them. Off unless an OTLP endpoint is set.
 */
import { startTracing } from '@app/telemetry/tracing';
import { redactUrl } from './logging/log-redaction';

// Read from the environment before the configuration is loaded; AppConfig refuses a value other than true or false.
startTracing({ serviceName: 'rms-api', redactUrl, trustInboundContext: process.env.TRACE_TRUST_INBOUND === 'true' });
