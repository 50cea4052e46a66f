import { Attributes, Context, Link, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { Sampler, SamplingDecision, SamplingResult } from '@opentelemetry/sdk-trace';

const SAMPLED: SamplingResult = Object.freeze({ decision: SamplingDecision.RECORD_AND_SAMPLED });

/**
 * A sampler that samples a child of a span this process is recording, sampled, without asking the
 * sampler it wraps, which is asked for every other span. It is for samplers that would say so
 * anyway: every one OTEL_TRACES_SAMPLER names does (parent-based ones follow a sampled local parent,
 * a ratio decides the parent's trace id again, always_off records no parent). The parent-based
 * sampler checks the parent's ids character by character for every child span, which the tracer
 * has just checked.
 */
export class RecordedParentSampler implements Sampler {
  constructor(private readonly sampler: Sampler) {}

  shouldSample(context: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    const parent = trace.getSpan(context);
    if (parent !== undefined && parent.isRecording() && (parent.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) return SAMPLED;
    return this.sampler.shouldSample(context, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return this.sampler.toString();
  }
}
