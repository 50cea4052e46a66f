import { INVALID_TRACEID } from '@opentelemetry/api';
import type { LoggerOptions } from 'pino';
import { activeSpanContext } from './trace-context';
import { isTracingOn } from './tracing';

/** The ids a log line carries to lead to its trace. */
export interface TraceLogFields {
  trace_id: string;
  span_id: string;
}

/** What the mixin gives a line that has nothing to add: no object is made and nothing merged. */
const NO_FIELDS = Object.freeze({});

/**
 * `trace_id` and `span_id` of the span active now, or of the unsampled request's trace, which its
 * event and deliveries carry on; undefined when tracing is off or nothing is active. Only the
 * invalid (all-zero) context of a no-op span is left out: every other id came from the SDK or
 * from a propagator that checked it, so the ids' hex is not tested again on every line.
 */
export function traceLogFields(): TraceLogFields | undefined {
  if (!isTracingOn()) return undefined;
  const spanContext = activeSpanContext();
  if (!spanContext || spanContext.traceId === INVALID_TRACEID) return undefined;
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** The mixin's fields: a new object each time, since pino merges the line into it; none for a line that names its trace itself. */
function mixinFields(line: object): TraceLogFields | typeof NO_FIELDS {
  if ('trace_id' in line) return NO_FIELDS;
  return traceLogFields() ?? NO_FIELDS;
}

/** pino's own merge (the line's fields over the mixin's), without the copy of the line when there is nothing to add. */
function mergeFields(line: object, fields: object): object {
  return fields === NO_FIELDS ? line : Object.assign(fields, line);
}

/**
 * The logger options with the active span's ids on every line when tracing is on, so that a line
 * leads to its trace; unchanged when it is off, so that a line then costs nothing more. A line
 * written on every request builds them into its own object (`traceLogFields`): merged by pino,
 * they cost a read about 4% of its instructions (docs/performance.md, "Tracing").
 */
export function withTraceFields(options: LoggerOptions): LoggerOptions {
  return isTracingOn() ? { ...options, mixin: mixinFields, mixinMergeStrategy: mergeFields } : options;
}
