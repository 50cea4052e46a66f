import type { SamplingFirst } from './sampling-first';
import type { RunningSdk } from './tracing-sdk';
import type { TracingSetup } from './tracing-setup';

/** The running SDK and what the app said of itself; undefined while tracing is off. */
let running: (RunningSdk & { setup: TracingSetup }) | undefined;

/**
 * Tracing is on when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT, or its traces-only
 * form) and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none switches it off.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the OpenTelemetry SDK when tracing is requested; to be called before anything requires
 * http, since the HTTP instrumentation patches it as it loads.
 */
export function startTracing(setup: TracingSetup): void {
  if (running || !tracingRequested()) return;
  // Required here, not imported: with tracing off no SDK or instrumentation module is ever loaded.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  running = { ...startTracingSdk(setup), setup };
}

export function isTracingOn(): boolean {
  return running !== undefined;
}

/** What the app told `startTracing`; undefined while tracing is off. */
export function tracingSetup(): TracingSetup | undefined {
  return running?.setup;
}

/** The sampling the SDK was given; undefined while tracing is off. */
export function tracingSampling(): SamplingFirst | undefined {
  return running?.sampling;
}

/** Exports the spans still buffered and stops tracing; nothing to do when it is off. */
export async function stopTracing(): Promise<void> {
  const sdk = running?.sdk;
  running = undefined;
  await sdk?.shutdown();
}
