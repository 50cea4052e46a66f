import { diag, TextMapPropagator } from '@opentelemetry/api';
import { CompositePropagator, getStringListFromEnv, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { B3InjectEncoding, B3Propagator } from '@opentelemetry/propagator-b3';

/** The propagators OTEL_PROPAGATORS may name: those the Node SDK itself knows. */
const PROPAGATORS: Record<string, () => TextMapPropagator> = {
  tracecontext: () => new W3CTraceContextPropagator(),
  baggage: () => new W3CBaggagePropagator(),
  b3: () => new B3Propagator(),
  b3multi: () => new B3Propagator({ injectEncoding: B3InjectEncoding.MULTI_HEADER }),
};

/**
 * The propagator OTEL_PROPAGATORS names, read by the Node SDK's rules (unknown names warned of and
 * skipped, `none` for none), or its default (W3C trace context and baggage); null for none. Read
 * here rather than left to the SDK so that the edge can wrap exactly what would be registered.
 */
export function configuredPropagator(): TextMapPropagator | null {
  const names = getStringListFromEnv('OTEL_PROPAGATORS');
  if (names === undefined) return new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
  if (names.includes('none')) return null;
  const propagators = [...new Set(names)].flatMap((name) => {
    const create = PROPAGATORS[name];
    if (create === undefined) diag.warn(`Propagator "${name}" requested through environment variable is unavailable.`);
    return create === undefined ? [] : [create()];
  });
  if (propagators.length === 0) return null;
  return propagators.length === 1 ? propagators[0] : new CompositePropagator({ propagators });
}
