import { createContextKey, createTraceState, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { contextOf, spanContextIn, traceContextOf, withUnrecordedTrace } from './trace-context';
import { tracingRequested } from './tracing';

describe('trace context headers', () => {
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const spanId = 'b7ad6b7169203331';

  it('names a sampled span and reads back the same parent', () => {
    const headers = { traceparent: `00-${traceId}-${spanId}-01` };
    const parent = trace.getSpanContext(contextOf(headers));
    expect(parent).toMatchObject({ traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
    expect(parent && traceContextOf(parent)).toEqual(headers);
  });

  it('neither writes nor reads back a trace state, which a caller may have chosen', () => {
    const withState = { traceId, spanId, traceFlags: TraceFlags.SAMPLED, traceState: createTraceState('vendor=opaque,other=1') };
    expect(traceContextOf(withState)).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    const stored = { traceparent: `00-${traceId}-${spanId}-01`, tracestate: 'vendor=opaque' };
    expect(trace.getSpanContext(contextOf(stored))?.traceState).toBeUndefined();
  });

  it('keeps a decision not to sample', () => {
    const parent = trace.getSpanContext(contextOf({ traceparent: `00-${traceId}-${spanId}-00` }));
    expect(parent?.traceFlags).toBe(TraceFlags.NONE);
    expect(parent && traceContextOf(parent)).toEqual({ traceparent: `00-${traceId}-${spanId}-00` });
  });

  it("keeps an unrecorded trace out of the active span, where each SQL statement and Redis command would look for a parent", () => {
    const parent = contextOf({ traceparent: `00-${traceId}-${spanId}-00` });
    const unsampled = { traceId, spanId: 'c0ffee00c0ffee00', traceFlags: TraceFlags.NONE };
    const work = withUnrecordedTrace(parent, unsampled);
    expect(trace.getSpan(parent)).toBeDefined();
    expect(trace.getSpan(work)).toBeUndefined();
    expect(spanContextIn(work)).toBe(unsampled);
    expect(traceContextOf(unsampled)).toEqual({ traceparent: `00-${traceId}-c0ffee00c0ffee00-00` });
    expect(spanContextIn(ROOT_CONTEXT)).toBeUndefined();
  });

  it('keeps the unrecorded trace of a request that came without a caller\'s context', () => {
    const unsampled = { traceId, spanId: 'c0ffee00c0ffee00', traceFlags: TraceFlags.NONE };
    const work = withUnrecordedTrace(ROOT_CONTEXT, unsampled);
    expect(trace.getSpan(work)).toBeUndefined();
    expect(spanContextIn(work)).toBe(unsampled);
    expect(spanContextIn(ROOT_CONTEXT)).toBeUndefined();
  });

  it('keeps the unrecorded trace, and the rest, through every change made to the context it is in', () => {
    const key = createContextKey('a value the work sets');
    const unsampled = { traceId, spanId: 'c0ffee00c0ffee00', traceFlags: TraceFlags.NONE };
    const work = withUnrecordedTrace(ROOT_CONTEXT.setValue(key, 'before'), unsampled);
    expect(work.getValue(key)).toBe('before');

    const changed = work.setValue(key, 'after');
    expect(changed.getValue(key)).toBe('after');
    expect(spanContextIn(changed)).toBe(unsampled);
    expect(work.getValue(key)).toBe('before');

    const withoutKey = changed.deleteValue(key);
    expect(withoutKey.getValue(key)).toBeUndefined();
    expect(spanContextIn(withoutKey)).toBe(unsampled);

    const other = { ...unsampled, spanId: 'deadbeefdeadbeef' };
    expect(spanContextIn(withUnrecordedTrace(work, other))).toBe(other);
    expect(spanContextIn(work)).toBe(unsampled);

    const span = trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.SAMPLED });
    const recorded = trace.setSpan(work, span);
    expect(trace.getSpan(recorded)).toBe(span);
    expect(trace.getSpan(work)).toBeUndefined();
    expect(spanContextIn(recorded)).toBe(span.spanContext());
  });

  it.each([null, undefined, { traceparent: 'garbage' }, { traceparent: `01-${traceId}-${spanId}-01` }, { traceparent: `00-${'0'.repeat(32)}-${spanId}-01` }])(
    'starts a new trace from %p',
    (headers) => {
      expect(contextOf(headers)).toBe(ROOT_CONTEXT);
    },
  );
});

describe('tracingRequested', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
  ])('%p: %p', (env, expected) => {
    expect(tracingRequested(env)).toBe(expected);
  });
});
