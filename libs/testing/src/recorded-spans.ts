import { context, ROOT_CONTEXT, Span, trace } from '@opentelemetry/api';
import { IdGenerator, InMemorySpanExporter, ReadableSpan, Sampler, SimpleSpanProcessor, StackContextManager, TracerProvider } from '@opentelemetry/sdk-trace';

/** The spans that code made through the global API, kept in memory. */
export interface RecordedSpans {
  /** The spans ended so far. */
  ended(): ReadableSpan[];
  /** A recording span of a new trace, and the context it is active in, for the code under test to run in. */
  parent(name: string): { span: Span; context: ReturnType<typeof trace.setSpan> };
  /** Unregisters the globals. */
  stop(): Promise<void>;
}

/**
 * Registers a tracer provider that keeps its spans in memory, and a context manager, as the
 * globals: for a spec of code that makes spans through `@opentelemetry/api`. The provider samples
 * every span unless given the sampler (and id generator) the SDK would be. The context manager
 * follows synchronous calls only, which is where the code decides on a span.
 */
export function recordSpansInMemory(sdk: { sampler?: Sampler; idGenerator?: IdGenerator } = {}): RecordedSpans {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ ...sdk, spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  context.setGlobalContextManager(new StackContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return {
    ended: () => exporter.getFinishedSpans(),
    parent: (name) => {
      const span = provider.getTracer('spec').startSpan(name, {}, ROOT_CONTEXT);
      return { span, context: trace.setSpan(ROOT_CONTEXT, span) };
    },
    stop: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}
