import { INVALID_TRACEID } from '@opentelemetry/api';
import type { LoggerOptions } from 'pino';
import { activeSpanContext } from './trace-context';
import { isTracingOn } from './tracing';

/**
 * `trace_id` and `span_id` of the span active when a line is written, or of the unsampled
 * request's trace, which its event and deliveries carry on. A new object each time: pino merges
 * the line's own fields into it. Only the invalid (all-zero) context of a no-op span is left out:
 * every other id came from the SDK or from a propagator that checked it, so the ids' hex is not
 * tested again on every line.
 */
function traceFields(): Record<string, string> {
  const spanContext = activeSpanContext();
  if (!spanContext || spanContext.traceId === INVALID_TRACEID) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/**
 * The logger options with the active span's ids on every line when tracing is on, so that a line
 * leads to its trace; unchanged when it is off, so that a line then costs nothing more.
 */
export function withTraceFields(options: LoggerOptions): LoggerOptions {
  return isTracingOn() ? { ...options, mixin: traceFields } : options;
}
