import { Context, createContextKey, isSpanContextValid, ROOT_CONTEXT, SpanContext, TextMapGetter, TextMapPropagator, TextMapSetter, trace } from '@opentelemetry/api';

const CALLER_SPAN_CONTEXT = createContextKey('the span context a caller sent, not continued');

/**
 * The propagator of a process that answers the internet: it injects as the configured one does,
 * but continues no caller's context. A request's trace starts here whatever `traceparent`,
 * `tracestate` or `baggage` it came with, so that a caller chooses neither the trace that the
 * events and deliveries it causes belong to, nor its sampling, nor data carried on with them.
 * A valid caller's span is kept aside, without its trace state, for the request's span to link to.
 */
export class EdgePropagator implements TextMapPropagator {
  constructor(private readonly configured: TextMapPropagator) {}

  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    this.configured.inject(context, carrier, setter);
  }

  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    const caller = trace.getSpanContext(this.configured.extract(ROOT_CONTEXT, carrier, getter));
    if (!caller || !isSpanContextValid(caller)) return context;
    const { traceId, spanId, traceFlags } = caller;
    return context.setValue(CALLER_SPAN_CONTEXT, { traceId, spanId, traceFlags, isRemote: true } satisfies SpanContext);
  }

  fields(): string[] {
    return this.configured.fields();
  }
}

/** The caller's span that `EdgePropagator` kept aside in a request's context, if any. */
export function callerSpanContext(context: Context): SpanContext | undefined {
  return context.getValue(CALLER_SPAN_CONTEXT) as SpanContext | undefined;
}
