import { diag } from '@opentelemetry/api';
import { getNumberFromEnv, getStringFromEnv } from '@opentelemetry/core';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, Sampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { RecordedParentSampler } from './recorded-parent-sampler';

/** The ratio OTEL_TRACES_SAMPLER_ARG gives, by the Node SDK's rules: 1 when blank or out of [0, 1], with its error. */
function ratioFromEnv(): number {
  const ratio = getNumberFromEnv('OTEL_TRACES_SAMPLER_ARG');
  if (ratio == null) {
    diag.error('OTEL_TRACES_SAMPLER_ARG is blank, defaulting to 1.');
    return 1;
  }
  if (ratio < 0 || ratio > 1) {
    diag.error(`OTEL_TRACES_SAMPLER_ARG=${ratio} was given, but it is out of range ([0..1]), defaulting to 1.`);
    return 1;
  }
  return ratio;
}

/**
 * The sampler the SDK is given, and, when it decides a new trace by a ratio of trace ids
 * (`traceidratio`, `parentbased_traceidratio`), that ratio: what `SamplingFirst` decides a new
 * trace by without the sampler reading the id's hex back.
 */
export interface ConfiguredSampling {
  sampler: Sampler;
  rootRatio?: number;
}

const withRatio = (sampler: (ratio: number) => Sampler) => (): ConfiguredSampling => {
  const ratio = ratioFromEnv();
  return { sampler: sampler(ratio), rootRatio: ratio };
};

/** The samplers OTEL_TRACES_SAMPLER may name: those the Node SDK itself knows. */
const SAMPLERS = new Map<string, () => ConfiguredSampling>([
  ['always_on', () => ({ sampler: new AlwaysOnSampler() })],
  ['always_off', () => ({ sampler: new AlwaysOffSampler() })],
  ['parentbased_always_on', () => ({ sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }) })],
  ['parentbased_always_off', () => ({ sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }) })],
  ['traceidratio', withRatio((ratio) => new TraceIdRatioBasedSampler(ratio))],
  ['parentbased_traceidratio', withRatio((ratio) => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }))],
]);

/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, read by the Node SDK's rules
 * (an unknown name logged and the default used), or its default (parent-based, always on). Read
 * here rather than left to the SDK so that the server span can ask the very sampler the SDK is
 * given before it makes any span (`SamplingFirst`). Each samples a child of a recorded sampled span
 * without being asked (`RecordedParentSampler`).
 */
export function configuredSampler(): ConfiguredSampling {
  const name = getStringFromEnv('OTEL_TRACES_SAMPLER');
  const create = name === undefined ? undefined : SAMPLERS.get(name);
  if (name !== undefined && create === undefined) diag.error(`unknown OTEL_TRACES_SAMPLER value "${name}", using default`);
  const { sampler, rootRatio } = create?.() ?? { sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }) };
  return { sampler: new RecordedParentSampler(sampler), rootRatio };
}
