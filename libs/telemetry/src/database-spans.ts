import { trace } from '@opentelemetry/api';
import type { DatabaseCall } from './database-call';
import { isTracingOn } from './tracing';

/**
 * Whether the work running now belongs to a span that records: the one check a statement or
 * command makes before anything of its span is built. False while tracing is off, and for an
 * unsampled request, whose trace is kept beside the active span (`withUnrecordedTrace`).
 */
export function inRecordingSpan(): boolean {
  return isTracingOn() && trace.getActiveSpan()?.isRecording() === true;
}

/**
 * Runs `work`, the call `describe` names, in a client span of its own, child of the active span,
 * when that span records; otherwise just runs it, and the call is never described. A failure is
 * recorded by its name and code alone: a database's error message may quote the values of the
 * statement.
 */
export function inDatabaseSpan<T>(describe: () => DatabaseCall, work: () => Promise<T>): Promise<T> {
  if (!inRecordingSpan()) return work();
  return databaseSpanRecorder().recordDatabaseCall(describe(), work);
}

let recorder: typeof import('./database-span-recorder') | undefined;

/**
 * Required at the first recorded call, not imported: with tracing off the semantic conventions are
 * never loaded. Then kept: with tracing on, every `require` passes through the instrumentation's
 * hook (require-in-the-middle), which resolves the module again, about 20 µs a call.
 */
function databaseSpanRecorder(): typeof import('./database-span-recorder') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  recorder ??= require('./database-span-recorder') as typeof import('./database-span-recorder');
  return recorder;
}
