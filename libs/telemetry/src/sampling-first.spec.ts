import { randomFillSync } from 'node:crypto';
import { Context, defaultTextMapGetter, ROOT_CONTEXT, SpanKind, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  ReadableSpan,
  Sampler,
  SamplingDecision,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { EdgePropagator } from './edge-propagator';
import { PooledRandomIds } from './pooled-random-ids';
import { SamplingFirst } from './sampling-first';

/** A SamplingFirst and the SDK tracer it was made for, recording in memory. */
function sdkWith(sampler: Sampler, rootRatio?: number, random?: PooledRandomIds) {
  const sampling = new SamplingFirst(sampler, rootRatio, random);
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ sampler: sampling.sampler, idGenerator: sampling.idGenerator, spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('spec');
  return { sampling, tracer, ended: (): ReadableSpan[] => exporter.getFinishedSpans() };
}

const ratio = (r: number): Sampler => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(r) });

const callerTraceId = '0af7651916cd43dd8448eb211c80319c';
const callerSpanId = 'b7ad6b7169203331';
const headers = (flags: string) => ({ traceparent: `00-${callerTraceId}-${callerSpanId}-${flags}`, tracestate: 'vendor=opaque' });

/** The context a request's headers give, through a propagator that continues callers' traces or one that does not. */
function extracted(trusted: boolean, carrier: Record<string, string>): Context {
  const w3c = new W3CTraceContextPropagator();
  const propagator = trusted ? w3c : new EdgePropagator(w3c);
  return propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}

describe('SamplingFirst', () => {
  it.each([
    ['asked of the sampler', undefined],
    ['decided from the words of the id made', 0.25],
  ])('samples a ratio r of new traces, %s, once, on the trace id the span then gets (r, not r²)', (_how, rootRatio) => {
    const { sampling, tracer, ended } = sdkWith(ratio(0.25), rootRatio);
    const spans = Array.from({ length: 4000 }, () => sampling.startSpan(tracer, 'GET', SpanKind.SERVER, ROOT_CONTEXT));
    const sampled = spans.filter((span) => span.isRecording());
    // 1000 expected; 5 standard deviations either side (r² would be 250).
    expect(sampled.length).toBeGreaterThan(850);
    expect(sampled.length).toBeLessThan(1150);
    const decider = new TraceIdRatioBasedSampler(0.25);
    for (const span of spans) {
      const { traceId, traceFlags } = span.spanContext();
      const wanted = decider.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
      expect((traceFlags & TraceFlags.SAMPLED) !== 0).toBe(wanted);
    }
    for (const span of sampled) span.end();
    expect(ended()).toHaveLength(sampled.length);
    expect(ended().every((span) => span.parentSpanContext === undefined)).toBe(true);
  });

  it('decides a new trace from the words of its id exactly as the ratio sampler decides it from the hex, at any ratio', () => {
    // Ratios spread over [0, 1] (fc.double's are mostly tiny), and some the sampler clamps.
    const ratios = fc.oneof(fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10_000), fc.constantFrom(-0.5, 1.5, Number.NaN));
    const words = fc.array(fc.nat({ max: 2 ** 32 - 1 }), { minLength: 4, maxLength: 4 });
    fc.assert(
      fc.property(ratios, words, (r, drawn) => {
        // The pool's first 16 bytes are the words drawn; the rest, for an all-zero draw, the system's.
        const random = new PooledRandomIds((bytes) => {
          randomFillSync(bytes);
          drawn.forEach((word, i) => new DataView(bytes.buffer).setUint32(4 * i, word, false));
        });
        const { sampling, tracer } = sdkWith(ratio(r), r, random);
        const span = sampling.startSpan(tracer, 'GET', SpanKind.SERVER, ROOT_CONTEXT);
        const { traceId, traceFlags } = span.spanContext();
        const hex = drawn.map((word) => word.toString(16).padStart(8, '0')).join('');
        if (hex === '0'.repeat(32)) expect(traceId).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
        else expect(traceId).toBe(hex);
        const wanted = new TraceIdRatioBasedSampler(r).shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
        expect(span.isRecording()).toBe(wanted);
        expect((traceFlags & TraceFlags.SAMPLED) !== 0).toBe(wanted);
        span.end();
      }),
      { endOnFailure: true, numRuns: 500 },
    );
  });

  it.each([
    [0, 0],
    [1, 4000],
  ])('samples, decided from the words at ratio %p, %p of 4,000 new traces, each with valid ids', (r, expected) => {
    const { sampling, tracer } = sdkWith(ratio(r), r);
    const spans = Array.from({ length: 4000 }, () => sampling.startSpan(tracer, 'GET', SpanKind.SERVER, ROOT_CONTEXT));
    expect(spans.filter((span) => span.isRecording())).toHaveLength(expected);
    expect(spans.every((span) => /^[0-9a-f]{32}$/.test(span.spanContext().traceId) && /^[0-9a-f]{16}$/.test(span.spanContext().spanId))).toBe(true);
  });

  it('asks the sampler once for an unsampled request, and never the tracer', () => {
    const sampler: Sampler = new AlwaysOffSampler();
    const asked = jest.spyOn(sampler, 'shouldSample');
    const { sampling, tracer } = sdkWith(sampler);
    const started = jest.spyOn(tracer, 'startSpan');
    const span = sampling.startSpan(tracer, 'GET', SpanKind.SERVER, ROOT_CONTEXT);
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext()).toEqual({ traceId: expect.stringMatching(/^[0-9a-f]{32}$/), spanId: expect.stringMatching(/^[0-9a-f]{16}$/), traceFlags: TraceFlags.NONE, traceState: undefined });
    expect(asked).toHaveBeenCalledTimes(1);
    expect(asked.mock.calls[0][1]).toBe(span.spanContext().traceId);
    expect(started).not.toHaveBeenCalled();
  });

  it("follows a trusted caller's sampled flag, as a child in its trace, whatever the ratio", () => {
    const { sampling, tracer, ended } = sdkWith(ratio(0));
    const span = sampling.startSpan(tracer, 'GET', SpanKind.SERVER, extracted(true, headers('01')));
    expect(span.isRecording()).toBe(true);
    span.end();
    const [recorded] = ended();
    expect(recorded.spanContext().traceId).toBe(callerTraceId);
    expect(recorded.parentSpanContext?.spanId).toBe(callerSpanId);
  });

  it("follows a trusted caller's not-sampled flag: the caller's trace, a span id of its own, its trace state, nothing recorded", () => {
    const { sampling, tracer, ended } = sdkWith(ratio(1));
    const span = sampling.startSpan(tracer, 'GET', SpanKind.SERVER, extracted(true, headers('00')));
    expect(span.isRecording()).toBe(false);
    const { traceId, spanId, traceFlags, traceState } = span.spanContext();
    expect({ traceId, traceFlags }).toEqual({ traceId: callerTraceId, traceFlags: TraceFlags.NONE });
    expect(spanId).not.toBe(callerSpanId);
    expect(traceState?.serialize()).toBe('vendor=opaque');
    expect(ended()).toEqual([]);
  });

  it("decides an untrusted caller's request as a new trace, by the ratio alone", () => {
    const never = sdkWith(ratio(0));
    const notSampled = never.sampling.startSpan(never.tracer, 'GET', SpanKind.SERVER, extracted(false, headers('01')));
    expect(notSampled.isRecording()).toBe(false);
    expect(notSampled.spanContext().traceId).not.toBe(callerTraceId);

    const always = sdkWith(ratio(1));
    const sampled = always.sampling.startSpan(always.tracer, 'GET', SpanKind.SERVER, extracted(false, headers('00')));
    expect(sampled.isRecording()).toBe(true);
    sampled.end();
    const [recorded] = always.ended();
    expect(recorded.spanContext().traceId).not.toBe(callerTraceId);
    expect(recorded.parentSpanContext).toBeUndefined();
  });
});
