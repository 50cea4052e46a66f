import { INVALID_TRACEID } from '@opentelemetry/api';
import pino, { LoggerOptions } from 'pino';
import { activeSpanContext } from './trace-context';
import { isTracingOn } from './tracing';

/**
 * `,"trace_id":"…","span_id":"…"`: the ids of the span active now, or of the unsampled request's
 * trace, which its event and deliveries carry on, as JSON fields; empty when nothing is active.
 * Only the invalid (all-zero) context of a no-op span is left out: every other id is hex from the
 * SDK or from a propagator that checked it, so it is neither tested nor escaped again.
 */
function traceIdFields(): string {
  const spanContext = activeSpanContext();
  if (!spanContext || spanContext.traceId === INVALID_TRACEID) return '';
  return `,"trace_id":"${spanContext.traceId}","span_id":"${spanContext.spanId}"`;
}

/**
 * The logger options with the active trace's ids on every line when tracing is on, so that a line
 * leads to its trace; unchanged when it is off, so that a line then costs nothing more. They are
 * written with the time, whose function pino asks for JSON it adds as it is: as fields of the
 * object logged, pino checks each id character by character, and a read paid about 4k
 * instructions for them, as much again as for the rest of its line (docs/performance.md, "Tracing").
 */
export function withTraceFields(options: LoggerOptions): LoggerOptions {
  if (!isTracingOn()) return options;
  const { timestamp } = options;
  const timeField = typeof timestamp === 'function' ? timestamp : timestamp === false ? () => '' : pino.stdTimeFunctions.epochTime;
  return { ...options, timestamp: () => timeField() + traceIdFields() };
}
