import { randomBytes } from 'node:crypto';
import { Context, ROOT_CONTEXT, Span, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  createAlwaysRecordSampler,
  ParentBasedSampler,
  Sampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { RecordedParentSampler } from './recorded-parent-sampler';

/** The samplers OTEL_TRACES_SAMPLER names (`configuredSampler`), a ratio of a half for the ratio ones. */
const samplers: [string, () => Sampler][] = [
  ['always_on', () => new AlwaysOnSampler()],
  ['always_off', () => new AlwaysOffSampler()],
  ['parentbased_always_on', () => new ParentBasedSampler({ root: new AlwaysOnSampler() })],
  ['parentbased_always_off', () => new ParentBasedSampler({ root: new AlwaysOffSampler() })],
  ['traceidratio', () => new TraceIdRatioBasedSampler(0.5)],
  ['parentbased_traceidratio', () => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.5) })],
];

const remote = (traceFlags: TraceFlags): Span =>
  trace.wrapSpanContext({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags, isRemote: true });

/**
 * Parents of every kind: spans a tracer on `sampler` recorded (some ended), spans recorded but not
 * sampled (a record-only sampler's), a caller's sampled and unsampled ones, none.
 */
function parents(sampler: Sampler): Context[] {
  const tracer = new TracerProvider({ sampler }).getTracer('spec');
  const recordingOnly = new TracerProvider({ sampler: createAlwaysRecordSampler(new AlwaysOffSampler()) }).getTracer('spec');
  return Array.from({ length: 48 }, (_, index) => {
    if (index % 6 === 5) return ROOT_CONTEXT;
    if (index % 6 === 4) return trace.setSpan(ROOT_CONTEXT, recordingOnly.startSpan('parent'));
    if (index % 6 === 2) return trace.setSpan(ROOT_CONTEXT, remote(TraceFlags.SAMPLED));
    if (index % 6 === 3) return trace.setSpan(ROOT_CONTEXT, remote(TraceFlags.NONE));
    const span = tracer.startSpan('parent');
    if (index % 6 === 1) span.end();
    return trace.setSpan(ROOT_CONTEXT, span);
  });
}

describe('RecordedParentSampler', () => {
  it.each(samplers)('decides every child span as %s does', (_, make) => {
    const sampler = make();
    const recordedParent = new RecordedParentSampler(sampler);
    for (const parent of parents(sampler)) {
      const traceId = trace.getSpanContext(parent)?.traceId ?? randomBytes(16).toString('hex');
      const expected = sampler.shouldSample(parent, traceId, 'child', SpanKind.CLIENT, {}, []).decision;
      expect(recordedParent.shouldSample(parent, traceId, 'child', SpanKind.CLIENT, {}, []).decision).toBe(expected);
    }
  });

  it('asks the sampler it wraps for every span but a child of a recorded sampled span', () => {
    const wrapped = new ParentBasedSampler({ root: new AlwaysOnSampler() });
    const asked = jest.spyOn(wrapped, 'shouldSample');
    const recordedParent = new RecordedParentSampler(wrapped);
    const tracer = new TracerProvider({ sampler: wrapped }).getTracer('spec');
    const recorded = trace.setSpan(ROOT_CONTEXT, tracer.startSpan('parent'));
    asked.mockClear();

    const child = recordedParent.shouldSample(recorded, trace.getSpanContext(recorded)!.traceId, 'child', SpanKind.CLIENT, {}, []);
    expect(child.decision).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(asked).not.toHaveBeenCalled();

    recordedParent.shouldSample(trace.setSpan(ROOT_CONTEXT, remote(TraceFlags.SAMPLED)), randomBytes(16).toString('hex'), 'child', SpanKind.CLIENT, {}, []);
    recordedParent.shouldSample(ROOT_CONTEXT, randomBytes(16).toString('hex'), 'root', SpanKind.SERVER, {}, []);
    expect(asked).toHaveBeenCalledTimes(2);
  });

  it('describes itself as the sampler it wraps', () => {
    const wrapped = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.1) });
    expect(new RecordedParentSampler(wrapped).toString()).toBe(wrapped.toString());
  });
});
