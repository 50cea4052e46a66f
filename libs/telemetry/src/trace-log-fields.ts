import { isSpanContextValid } from '@opentelemetry/api';
import type { LoggerOptions } from 'pino';
import { activeSpanContext } from './trace-context';
import { isTracingOn } from './tracing';

/**
 * `trace_id` and `span_id` of the span active when a line is written, or of the unsampled
 * request's trace, which its event and deliveries carry on. A new object each time: pino merges
 * the line's own fields into it.
 */
function traceFields(): Record<string, string> {
  const spanContext = activeSpanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/**
 * The logger options with the active span's ids on every line when tracing is on, so that a line
 * leads to its trace; unchanged when it is off, so that a line then costs nothing more.
 */
export function withTraceFields(options: LoggerOptions): LoggerOptions {
  return isTracingOn() ? { ...options, mixin: traceFields } : options;
}
