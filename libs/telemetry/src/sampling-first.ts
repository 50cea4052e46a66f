import { Context, isSpanContextValid, Span, SpanKind, trace, TraceFlags, Tracer, TraceState } from '@opentelemetry/api';
import { IdGenerator, Sampler, SamplingDecision } from '@opentelemetry/sdk-trace';
import { PooledRandomIds } from './pooled-random-ids';

/**
 * The process's id generator, except that the next trace id it makes may be one decided on already:
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

/** A new trace's id, whether it is sampled, and the trace state the sampler gave it. */
interface NewTrace {
  traceId: string;
  sampled: boolean;
  traceState?: TraceState;
}

/**
 * New trace ids, each decided as TraceIdRatioBasedSampler decides it: its four 32-bit words XORed,
 * below the ratio's share of 2³². The sampler's `_accumulate` reads the same words back from the
 * id's hex, each character checked, which cost a request more than making the id; here they are
 * read from the random bytes the id's hex was written from (`PooledRandomIds`).
 */
class RatioRootTraces {
  private readonly upperBound: number;

  constructor(
    ratio: number,
    private readonly ids: PooledRandomIds,
  ) {
    const share = Number.isNaN(ratio) ? 0 : Math.min(1, Math.max(0, ratio));
    this.upperBound = share === 1 ? 2 ** 32 : Math.floor(share * 0xffffffff);
  }

  next(): NewTrace {
    const { ids } = this;
    const at = ids.take(16);
    const accumulated = (ids.word(at) ^ ids.word(at + 4) ^ ids.word(at + 8) ^ ids.word(at + 12)) >>> 0;
    return { traceId: ids.hexAt(at, 16), sampled: accumulated < this.upperBound };
  }
}

/**
 * Asks the sampler before any span is made. The SDK's tracer builds a span's ids, its options and
 * its attributes, then asks the sampler, and returns a non-recording span when it says no; here a
 * span that will not be recorded is only its span context, made from the same ids and sampler, and
 * the tracer is called for a sampled one alone. Both are the SDK's: `sampler` and `idGenerator`
 * (ids from `random`) are what it is given, and a sampled root gets the trace id it was sampled on,
 * so that a ratio `r` samples `r` of requests, not `r`². Given `rootRatio` (the ratio by which
 * `sampler` decides a new trace), a new trace is decided from the words of its id as the id is
 * made (`RatioRootTraces`).
 */
export class SamplingFirst {
  readonly idGenerator: IdGenerator;
  private readonly ids: DecidedTraceIds;
  private readonly ratioRoots: RatioRootTraces | undefined;

  constructor(
    readonly sampler: Sampler,
    rootRatio?: number,
    random = new PooledRandomIds(),
  ) {
    this.ids = new DecidedTraceIds(random);
    this.idGenerator = this.ids;
    this.ratioRoots = rootRatio === undefined ? undefined : new RatioRootTraces(rootRatio, random);
  }

  /**
   * A span of `tracer` named `name`, child of the span `parent` holds (a root without one): a
   * recording span when sampled, otherwise a non-recording one made without the tracer, carrying
   * the trace id, a new span id and the not-sampled flag. Attributes and links are for the caller
   * to add once it knows the span records.
   */
  startSpan(tracer: Tracer, name: string, kind: SpanKind, parent: Context): Span {
    const parentSpanContext = trace.getSpanContext(parent);
    if (parentSpanContext && isSpanContextValid(parentSpanContext)) {
      const sampling = this.sampler.shouldSample(parent, parentSpanContext.traceId, name, kind, {}, []);
      if (sampling.decision === SamplingDecision.NOT_RECORD) return this.unrecorded(parentSpanContext.traceId, sampling.traceState ?? parentSpanContext.traceState);
      return tracer.startSpan(name, { kind }, parent);
    }
    const root = this.newTrace(parent, name, kind);
    if (!root.sampled) return this.unrecorded(root.traceId, root.traceState);
    return this.ids.startingWith(root.traceId, () => tracer.startSpan(name, { kind }, parent));
  }

  /** A new trace's id and the decision on it: from its words with a ratio, otherwise the sampler's. */
  private newTrace(parent: Context, name: string, kind: SpanKind): NewTrace {
    if (this.ratioRoots) return this.ratioRoots.next();
    const traceId = this.ids.generateTraceId();
    const sampling = this.sampler.shouldSample(parent, traceId, name, kind, {}, []);
    return { traceId, sampled: sampling.decision !== SamplingDecision.NOT_RECORD, traceState: sampling.traceState };
  }

  /** The span of work in trace `traceId` that records nothing: its span context alone. */
  private unrecorded(traceId: string, traceState: TraceState | undefined): Span {
    return trace.wrapSpanContext({ traceId, spanId: this.ids.generateSpanId(), traceFlags: TraceFlags.NONE, traceState });
  }
}
