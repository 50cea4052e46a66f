import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { AlwaysOnSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { RecordedParentSampler } from './recorded-parent-sampler';

describe('RecordedParentSampler', () => {
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

    recordedParent.shouldSample(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags: TraceFlags.SAMPLED, isRemote: true })), randomBytes(16).toString('hex'), 'child', SpanKind.CLIENT, {}, []);
    recordedParent.shouldSample(ROOT_CONTEXT, randomBytes(16).toString('hex'), 'root', SpanKind.SERVER, {}, []);
    expect(asked).toHaveBeenCalledTimes(2);
  });

  it('describes itself as the sampler it wraps', () => {
    const wrapped = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.1) });
    expect(new RecordedParentSampler(wrapped).toString()).toBe(wrapped.toString());
  });
});
