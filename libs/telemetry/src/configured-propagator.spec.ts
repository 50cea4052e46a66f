import { CompositePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { B3Propagator } from '@opentelemetry/propagator-b3';
import { configuredPropagator } from './configured-propagator';

describe('configuredPropagator', () => {
  const saved = process.env.OTEL_PROPAGATORS;
  afterEach(() => {
    if (saved === undefined) delete process.env.OTEL_PROPAGATORS;
    else process.env.OTEL_PROPAGATORS = saved;
  });

  const fieldsOf = (value: string | undefined): string[] | undefined => {
    if (value === undefined) delete process.env.OTEL_PROPAGATORS;
    else process.env.OTEL_PROPAGATORS = value;
    return configuredPropagator()?.fields();
  };

  it('is W3C trace context and baggage by default', () => {
    expect(fieldsOf(undefined)).toEqual(['traceparent', 'tracestate', 'baggage']);
  });

  it('is the one named, or a composite of several', () => {
    process.env.OTEL_PROPAGATORS = 'tracecontext';
    expect(configuredPropagator()).toBeInstanceOf(W3CTraceContextPropagator);
    process.env.OTEL_PROPAGATORS = 'b3';
    expect(configuredPropagator()).toBeInstanceOf(B3Propagator);
    process.env.OTEL_PROPAGATORS = 'tracecontext,b3multi';
    expect(configuredPropagator()).toBeInstanceOf(CompositePropagator);
    expect(fieldsOf('tracecontext,b3multi')).toEqual(expect.arrayContaining(['traceparent', 'x-b3-traceid']));
  });

  it('is none for none, and skips the names it does not know', () => {
    expect(fieldsOf('none')).toBeUndefined();
    expect(fieldsOf('xray')).toBeUndefined();
    expect(fieldsOf('xray,tracecontext')).toEqual(['traceparent', 'tracestate']);
  });
});
