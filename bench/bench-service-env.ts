import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const BENCH_DATABASE_SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
export const BENCH_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The node flags of the `start:api` script in a project's package.json. */
export function apiNodeFlagsOf(packageJson: string): string[] {
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts: Record<string, string> }).scripts['start:api']
    .split(/\s+/)
    .filter((word) => word.startsWith('--'));
}

/** The node flags of `npm run start:api`: the API runs with them in a bench too. */
export const API_NODE_FLAGS: string[] = apiNodeFlagsOf('package.json');

/** The service's settings in a benchmark: production mode on a scratch database and Redis prefix. */
export function benchServiceEnv(database: string): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'production',
    APP_ENV: 'test',
    DATABASE_URL: `${BENCH_DATABASE_SERVER}/${database}`,
    REDIS_URL: BENCH_REDIS_URL,
    REDIS_PREFIX: database,
    JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    // Every request is counted in Redis; the limits are raised so that the load generator
    // measures the counted path rather than 429s.
    RATE_LIMIT_PLAN_LIMITS: 'free=1000000000,pro=1000000000,enterprise=1000000000',
  };
}

/** The service's tracing settings at one sampling ratio, exporting to the OTLP sink on `sinkPort` (otlp-sink.ts). */
export function tracingEnv(ratio: string, sinkPort: number): NodeJS.ProcessEnv {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}`,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: ratio,
  };
}
