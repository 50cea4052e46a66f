import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { Context, ROOT_CONTEXT, Span, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, createAlwaysRecordSampler, ParentBasedSampler, Sampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { configuredSampler } from './configured-sampler';

/** The Node SDK's own reading of OTEL_TRACES_SAMPLER, which its package does not export: the sampler NodeSDK would make unasked. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sdkFromEnv = require(join(dirname(require.resolve('@opentelemetry/sdk-node')), 'create-from-env.cjs')) as { createSamplerFromEnv(): Sampler | undefined };

/** Sets OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, unset when undefined. */
function useEnv(name: string | undefined, arg: string | undefined): void {
  if (name === undefined) delete process.env.OTEL_TRACES_SAMPLER;
  else process.env.OTEL_TRACES_SAMPLER = name;
  if (arg === undefined) delete process.env.OTEL_TRACES_SAMPLER_ARG;
  else process.env.OTEL_TRACES_SAMPLER_ARG = arg;
}

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

describe('configuredSampler', () => {
  const saved = { name: process.env.OTEL_TRACES_SAMPLER, arg: process.env.OTEL_TRACES_SAMPLER_ARG };
  afterEach(() => {
    for (const [variable, value] of [
      ['OTEL_TRACES_SAMPLER', saved.name],
      ['OTEL_TRACES_SAMPLER_ARG', saved.arg],
    ] as const) {
      if (value === undefined) delete process.env[variable];
      else process.env[variable] = value;
    }
  });

  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ['always_on', undefined],
    ['always_off', undefined],
    ['parentbased_always_on', undefined],
    ['parentbased_always_off', undefined],
    ['traceidratio', '0.25'],
    ['parentbased_traceidratio', '0.1'],
    ['parentbased_traceidratio', ''],
    ['parentbased_traceidratio', '1.5'],
    ['unknown', undefined],
    ['toString', undefined],
  ];

  // Unset or unknown, the SDK makes none and its tracer provider uses its default: parent-based, always on.
  const sdkSampler = (): Sampler => sdkFromEnv.createSamplerFromEnv() ?? new ParentBasedSampler({ root: new AlwaysOnSampler() });

  it.each(cases)('reads OTEL_TRACES_SAMPLER=%s OTEL_TRACES_SAMPLER_ARG=%s as the Node SDK does', (name, arg) => {
    useEnv(name, arg);
    expect(configuredSampler().sampler.toString()).toBe(sdkSampler().toString());
  });

  it.each(cases)('decides every child span under OTEL_TRACES_SAMPLER=%s OTEL_TRACES_SAMPLER_ARG=%s as the Node SDK does', (name, arg) => {
    useEnv(name, arg);
    const sdks = sdkSampler();
    const configured = configuredSampler().sampler;
    for (const parent of parents(sdks)) {
      const traceId = trace.getSpanContext(parent)?.traceId ?? randomBytes(16).toString('hex');
      const expected = sdks.shouldSample(parent, traceId, 'child', SpanKind.CLIENT, {}, []).decision;
      expect(configured.shouldSample(parent, traceId, 'child', SpanKind.CLIENT, {}, []).decision).toBe(expected);
    }
  });

  it.each([
    ['traceidratio', '0.25', 0.25],
    ['parentbased_traceidratio', '0.1', 0.1],
    ['parentbased_traceidratio', '1.5', 1],
    ['parentbased_always_on', undefined, undefined],
    ['always_off', undefined, undefined],
  ])('names the ratio OTEL_TRACES_SAMPLER=%s OTEL_TRACES_SAMPLER_ARG=%s samples a new trace at: %p', (name, arg, ratio) => {
    useEnv(name, arg);
    expect(configuredSampler().rootRatio).toBe(ratio);
  });
});
