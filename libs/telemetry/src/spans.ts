import { Attributes, Span, SpanKind, SpanStatusCode, trace, Tracer, TracerProvider } from '@opentelemetry/api';
import { contextOf, TraceContextHeaders, traceContextOf } from './trace-context';
import { isTracingOn } from './tracing';

export interface SpanSettings {
  kind?: SpanKind;
  attributes?: Attributes;
  /** When the work began, if before the span is made. */
  startTime?: Date;
}

/** The tracer `tracer()` last gave, and the global provider it came from. */
let current: { provider: TracerProvider; tracer: Tracer } | undefined;

/**
 * The service's own tracer, of the spans it makes itself rather than through an instrumentation:
 * looked up again only when the global provider is another (a spec's, after `trace.disable()`),
 * since a lookup by name builds a key every time and a sampled read asks for it once per span.
 */
export function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (current?.provider !== provider) current = { provider, tracer: provider.getTracer('resource-management-service') };
  return current.tracer;
}

/** Ends a span, marked failed with the exception when there is one. */
function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    const exception = error instanceof Error ? error : new Error(JSON.stringify(error));
    span.recordException(exception);
    span.setStatus({ code: SpanStatusCode.ERROR, message: exception.message });
  }
  span.end();
}

/**
 * Runs `work` in a new active span, a child of the span `parent` names (a root span without
 * one), so that what `work` does (SQL, Redis, HTTP) is traced inside it. Just runs it when
 * tracing is off.
 */
export function inSpan<T>(name: string, parent: TraceContextHeaders | null | undefined, settings: SpanSettings, work: () => Promise<T>): Promise<T> {
  if (!isTracingOn()) return work();
  return tracer().startActiveSpan(name, settings, contextOf(parent), async (span) => {
    try {
      const result = await work();
      endSpan(span);
      return result;
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  });
}

/** Adds attributes to the active span, once `inSpan` has learned them; nothing when tracing is off. */
export function annotateActiveSpan(attributes: Attributes): void {
  if (isTracingOn()) trace.getActiveSpan()?.setAttributes(attributes);
}

/** One piece of a batch: its key, the trace it belongs to, and its own attributes. */
export interface BatchItem {
  key: string;
  parent: TraceContextHeaders | null | undefined;
  attributes?: Attributes;
}

/**
 * Work done at once for items of many traces, such as a batch of events written by many
 * requests: one span in each item's trace, all covering the same work, rather than one span
 * linked to them all, so that every trace shows its own part whole. Makes nothing when tracing
 * is off.
 */
export class BatchSpans {
  private readonly spans = new Map<string, Span>();

  constructor(name: string, settings: SpanSettings, items: BatchItem[]) {
    if (!isTracingOn()) return;
    for (const item of items) {
      const attributes = { ...settings.attributes, ...item.attributes };
      this.spans.set(item.key, tracer().startSpan(name, { ...settings, attributes }, contextOf(item.parent)));
    }
  }

  /** The headers naming the item's span as parent, for the work it hands on; undefined when tracing is off. */
  traceContextOf(key: string): TraceContextHeaders | undefined {
    const span = this.spans.get(key);
    return span && traceContextOf(span.spanContext());
  }

  /** Runs the batch's work and ends every span with its outcome. */
  async around<T>(work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      for (const span of this.spans.values()) endSpan(span);
      return result;
    } catch (error) {
      for (const span of this.spans.values()) endSpan(span, error);
      throw error;
    }
  }
}
