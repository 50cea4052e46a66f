import { dirname, join } from 'node:path';
import { AlwaysOnSampler, ParentBasedSampler, Sampler } from '@opentelemetry/sdk-trace';
import { configuredSampler } from './configured-sampler';

/** The Node SDK's own reading of OTEL_TRACES_SAMPLER, which its package does not export: the sampler NodeSDK would make unasked. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sdkFromEnv = require(join(dirname(require.resolve('@opentelemetry/sdk-node')), 'create-from-env.cjs')) as { createSamplerFromEnv(): Sampler | undefined };

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

  it.each(cases)('reads OTEL_TRACES_SAMPLER=%s OTEL_TRACES_SAMPLER_ARG=%s as the Node SDK does', (name, arg) => {
    if (name === undefined) delete process.env.OTEL_TRACES_SAMPLER;
    else process.env.OTEL_TRACES_SAMPLER = name;
    if (arg === undefined) delete process.env.OTEL_TRACES_SAMPLER_ARG;
    else process.env.OTEL_TRACES_SAMPLER_ARG = arg;
    // Unset or unknown, the SDK makes none and its tracer provider uses its default: parent-based, always on.
    const sdks = sdkFromEnv.createSamplerFromEnv() ?? new ParentBasedSampler({ root: new AlwaysOnSampler() });
    expect(configuredSampler().sampler.toString()).toBe(sdks.toString());
  });

  it.each([
    ['traceidratio', '0.25', 0.25],
    ['parentbased_traceidratio', '0.1', 0.1],
    ['parentbased_traceidratio', '1.5', 1],
    ['parentbased_always_on', undefined, undefined],
    ['always_off', undefined, undefined],
  ])('names the ratio OTEL_TRACES_SAMPLER=%s OTEL_TRACES_SAMPLER_ARG=%s samples a new trace at: %p', (name, arg, ratio) => {
    process.env.OTEL_TRACES_SAMPLER = name;
    if (arg === undefined) delete process.env.OTEL_TRACES_SAMPLER_ARG;
    else process.env.OTEL_TRACES_SAMPLER_ARG = arg;
    expect(configuredSampler().rootRatio).toBe(ratio);
  });
});
