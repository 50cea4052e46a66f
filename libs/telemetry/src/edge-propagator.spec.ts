import { defaultTextMapGetter, defaultTextMapSetter, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { callerSpanContext, EdgePropagator } from './edge-propagator';

describe('EdgePropagator', () => {
  const configured = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
  const edge = new EdgePropagator(configured);
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const spanId = 'b7ad6b7169203331';
  const caller = { traceparent: `00-${traceId}-${spanId}-01`, tracestate: 'client=chosen', baggage: 'account=someone-else' };

  it("continues no caller's span, trace state or baggage, and keeps the span aside for a link", () => {
    const extracted = edge.extract(ROOT_CONTEXT, caller, defaultTextMapGetter);
    expect(trace.getSpanContext(extracted)).toBeUndefined();
    expect(propagation.getBaggage(extracted)).toBeUndefined();
    expect(callerSpanContext(extracted)).toEqual({ traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
  });

  it('keeps nothing aside from an invalid or missing traceparent', () => {
    for (const headers of [{}, { traceparent: 'garbage' }, { traceparent: `00-${'0'.repeat(32)}-${spanId}-01` }]) {
      expect(callerSpanContext(edge.extract(ROOT_CONTEXT, headers, defaultTextMapGetter))).toBeUndefined();
    }
  });

  it("injects the service's own context as the configured propagator does", () => {
    const own = trace.setSpanContext(ROOT_CONTEXT, { traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: TraceFlags.SAMPLED });
    const sent: Record<string, string> = {};
    edge.inject(own, sent, defaultTextMapSetter);
    expect(sent).toEqual({ traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` });
    expect(edge.fields()).toEqual(configured.fields());
  });
});
