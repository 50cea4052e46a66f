import { Context, context, createContextKey, isSpanContextValid, ROOT_CONTEXT, SpanContext, trace, TraceFlags } from '@opentelemetry/api';
import { isTracingOn } from './tracing';

/**
 * The W3C `traceparent` of a span: what an event stores of the request that wrote it, and what
 * its delivery jobs carry to the worker. Never a `tracestate`: an event's deliveries go to many
 * accounts' receivers, and a trace state is opaque data that a caller may have written.
 */
export interface TraceContextHeaders {
  traceparent: string;
}

/** Version 00, the only one written (by `traceContextOf`). */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The headers naming a span as parent; undefined for an invalid span context. */
export function traceContextOf(spanContext: SpanContext): TraceContextHeaders | undefined {
  if (!isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return { traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}` };
}

const UNRECORDED_TRACE = createContextKey('the trace of work that records no span');

/**
 * A context that is `parent` with an unrecorded trace added: one small object, made for every
 * unsampled request, where the API's own context copies its parent's map and makes three closures
 * at each change. Read on every SQL statement, Redis command and log line; changed (a copy of the
 * API's own, with the trace in it) only by what the request sets in its context, such as an
 * outgoing request's instrumentation.
 */
class UnrecordedTraceContext implements Context {
  constructor(
    private readonly parent: Context,
    private readonly unrecorded: SpanContext,
  ) {}

  getValue(key: symbol): unknown {
    return key === UNRECORDED_TRACE ? this.unrecorded : this.parent.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    if (key === UNRECORDED_TRACE) return this.parent.setValue(key, value);
    return new UnrecordedTraceContext(this.parent.setValue(key, value), this.unrecorded);
  }

  deleteValue(key: symbol): Context {
    if (key === UNRECORDED_TRACE) return this.parent.deleteValue(key);
    return new UnrecordedTraceContext(this.parent.deleteValue(key), this.unrecorded);
  }
}

/**
 * `parent` carrying a trace that records nothing, such as an unsampled request's: kept aside
 * rather than as the active span, so that its SQL and Redis commands, which make a span only
 * under a recording one (`inRecordingSpan`), find none at once, while what the work hands on (an
 * event's `traceparent`, log lines) still names the trace and its not-sampled flag.
 */
export function withUnrecordedTrace(parent: Context, spanContext: SpanContext): Context {
  // A request without a caller's context has no span to delete, and deleting one copies the context.
  const withoutSpan = trace.getSpan(parent) ? trace.deleteSpan(parent) : parent;
  return new UnrecordedTraceContext(withoutSpan, spanContext);
}

/** The span context `work` holds: its span's, or the unrecorded trace it belongs to. */
export function spanContextIn(work: Context): SpanContext | undefined {
  return trace.getSpanContext(work) ?? (work.getValue(UNRECORDED_TRACE) as SpanContext | undefined);
}

/** The span context of the work running now. */
export function activeSpanContext(): SpanContext | undefined {
  return spanContextIn(context.active());
}

/** The headers of the span active now (or of the unrecorded trace); undefined when tracing is off or there is none. */
export function activeTraceContext(): TraceContextHeaders | undefined {
  if (!isTracingOn()) return undefined;
  const spanContext = activeSpanContext();
  return spanContext && traceContextOf(spanContext);
}

/**
 * A context whose parent is the remote span the headers name, keeping its sampling decision;
 * the root context when there are none. Never the context active now: work started from a job
 * belongs to the trace the job carries, not to whatever ran before. A trace state stored before
 * they were left out is ignored, so that it reaches no receiver.
 */
export function contextOf(headers: TraceContextHeaders | null | undefined): Context {
  const match = headers ? TRACEPARENT.exec(headers.traceparent) : null;
  if (!headers || !match) return ROOT_CONTEXT;
  const [, traceId, spanId, flags] = match;
  const parent: SpanContext = {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(parent) ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
}
