import { Context, isSpanContextValid, Span, SpanContext, SpanKind, trace, TraceFlags, Tracer } from '@opentelemetry/api';
import { IdGenerator, Sampler, SamplingDecision } from '@opentelemetry/sdk-trace';

/**
 * The SDK's id generator, except that the next trace id it makes may be one decided on already:
 * so that a root span the sampler chose gets the very trace id it was chosen on.
 */
class DecidedTraceIds implements IdGenerator {
  private decided: string | undefined;

  constructor(private readonly random: IdGenerator) {}

  generateTraceId(): string {
    const traceId = this.decided ?? this.random.generateTraceId();
    this.decided = undefined;
    return traceId;
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }

  /** Runs `start` with `traceId` as the trace id of a root span it makes. */
  startingWith<T>(traceId: string, start: () => T): T {
    this.decided = traceId;
    try {
      return start();
    } finally {
      this.decided = undefined;
    }
  }
}

/**
 * Asks the sampler before any span is made. The SDK's tracer builds a span's ids, its options and
 * its attributes, then asks the sampler, and returns a non-recording span when it says no; here a
 * span that will not be recorded is only its span context, made from the same ids and sampler, and
 * the tracer is called for a sampled one alone. Both are the SDK's: `sampler` and `idGenerator` are
 * what it is given, and a sampled root gets the trace id it was sampled on, so that a ratio `r`
 * samples `r` of requests, not `r`².
 */
export class SamplingFirst {
  readonly idGenerator: IdGenerator;
  private readonly ids: DecidedTraceIds;

  constructor(
    readonly sampler: Sampler,
    random: IdGenerator,
  ) {
    this.ids = new DecidedTraceIds(random);
    this.idGenerator = this.ids;
  }

  /**
   * A span of `tracer` named `name`, child of the span `parent` holds (a root without one): a
   * recording span when sampled, otherwise a non-recording one made without the tracer, carrying
   * the trace id, a new span id and the not-sampled flag. Attributes and links are for the caller
   * to add once it knows the span records.
   */
  startSpan(tracer: Tracer, name: string, kind: SpanKind, parent: Context): Span {
    const parentSpanContext = trace.getSpanContext(parent);
    const validParent = parentSpanContext && isSpanContextValid(parentSpanContext) ? parentSpanContext : undefined;
    const traceId = validParent?.traceId ?? this.ids.generateTraceId();
    const sampling = this.sampler.shouldSample(parent, traceId, name, kind, {}, []);
    if (sampling.decision === SamplingDecision.NOT_RECORD) {
      const unrecorded: SpanContext = {
        traceId,
        spanId: this.ids.generateSpanId(),
        traceFlags: TraceFlags.NONE,
        traceState: sampling.traceState ?? validParent?.traceState,
      };
      return trace.wrapSpanContext(unrecorded);
    }
    if (validParent) return tracer.startSpan(name, { kind }, parent);
    return this.ids.startingWith(traceId, () => tracer.startSpan(name, { kind }, parent));
  }
}
