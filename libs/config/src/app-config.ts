import 'reflect-metadata';
import { applyDecorators } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { LogEnvironment, Plan } from '@app/common';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateBy,
  ValidateIf,
  validateSync,
} from 'class-validator';

const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

/** The entries of a comma-separated setting, trimmed; an empty setting has none. */
const splitList = (value: string): string[] => (value.trim() === '' ? [] : value.split(',').map((entry) => entry.trim()));

/** A timeout in milliseconds: a whole number, at least 100. */
const TimeoutMs = (): PropertyDecorator => applyDecorators(Transform(toInt), IsInt(), Min(100));

/**
 * One DNS server as `dns.setServers` takes it: `ip`, `ip:port` or `[ipv6]:port`. The port is
 * checked here because port 0 aborts the process inside Node's c-ares binding.
 */
function isDnsServer(entry: string): boolean {
  if (isIP(entry)) return true;
  const match = /^(?:\[(.+)\]|([\d.]+))(?::(\d+))?$/.exec(entry);
  const port = Number(match?.[3] ?? 53);
  return match !== null && (match[1] ? isIP(match[1]) === 6 : isIP(match[2]) === 4) && port >= 1 && port <= 65535;
}

/** One seed of a Redis Cluster as a URL (`host:port` reads as redis://host:port), or null if it is not one. */
function redisClusterSeed(entry: string): URL | null {
  const text = entry.includes('://') ? entry : `redis://${entry}`;
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  const serverOnly = url.pathname === '' || url.pathname === '/';
  return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '' && url.port !== '' && serverOnly ? url : null;
}

/**
 * An origin exactly as a browser sends it in `Origin` (RFC 6454): http or https, the host in
 * lower case, a port only when it is not the scheme's default, nothing after. Anything else could
 * never equal a request's `Origin`, so it is refused at start rather than never matching.
 */
function isSerializedOrigin(entry: string): boolean {
  if (!URL.canParse(entry)) return false;
  const url = new URL(entry);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === entry;
}

/** Requests per minute of each plan, as docs/api.md#rate-limits promises. */
const CONTRACT_PLAN_LIMITS = 'free=60,pro=600,enterprise=6000';
/**
 * One person trying the service on their own machine (README, console, docs) on a free account
 * should never meet a 429: a hundred times each plan, so the headers still tell the plans apart.
 */
const DEVELOPMENT_PLAN_LIMITS = 'free=6000,pro=60000,enterprise=600000';

/** Whether the settings are a test run's, where test-only hooks may be switched on. */
function isTestRun(config: AppConfig): boolean {
  return config.NODE_ENV === 'test' && config.APP_ENV === 'test';
}

/**
 * Development without JWT_SECRET signs with a secret made at start: nothing secret is built into
 * the code, and tokens simply stop working when the process restarts.
 */
let processSecret: string | undefined;
function developmentSecret(): string {
  processSecret ??= randomBytes(32).toString('hex');
  return processSecret;
}

/** argon2's own names for the cost of a hash. */
export interface PasswordHashCost {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/**
 * The process environment, validated once at start. Both apps and the CLI read their settings
 * from this class only; a missing or bad value stops the process with the variable's name.
 */
export class AppConfig {
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/rms';

  /**
   * The PostgreSQL server itself, for what needs a session of its own (migrations under their
   * advisory lock, LISTEN) when DATABASE_URL is a pooler in transaction mode; unset: DATABASE_URL.
   */
  @ValidateIf((config: AppConfig) => config.DATABASE_DIRECT_URL !== undefined)
  @IsString()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'must be a postgres:// URL' })
  DATABASE_DIRECT_URL?: string;

  @IsString()
  @Matches(/^rediss?:\/\/.+/, { message: 'must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * Seeds of a Redis Cluster (comma-separated `host:port`, or redis:// / rediss:// URLs whose
   * credentials and TLS apply to every node); when set, every Redis client is a cluster client
   * and REDIS_URL is not used.
   */
  @ValidateIf((config: AppConfig) => config.REDIS_CLUSTER_NODES !== undefined)
  @ValidateBy(
    {
      name: 'isRedisClusterSeedList',
      validator: { validate: (value: unknown) => typeof value === 'string' && splitList(value).length > 0 && splitList(value).every((entry) => redisClusterSeed(entry) !== null) },
    },
    { message: 'must be comma-separated host:port seeds of a Redis Cluster, e.g. 10.0.0.1:7000,10.0.0.2:7000' },
  )
  REDIS_CLUSTER_NODES?: string;

  @IsString()
  @Matches(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'must be 1-64 characters of [A-Za-z0-9:_-]' })
  REDIS_PREFIX = 'rms';

  @IsIn(['test', 'live'])
  APP_ENV: 'test' | 'live' = 'test';

  /** Unset means production: development's conveniences are asked for, never assumed. */
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'production';

  @ValidateIf((config: AppConfig) => config.NODE_ENV !== 'development' || config.JWT_SECRET !== undefined)
  @IsString({ message: 'is required unless NODE_ENV=development is set' })
  @MinLength(32, { message: 'must be at least 32 characters' })
  JWT_SECRET?: string;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** `json` lines or `pretty` coloured lines; unset: pretty when stdout is a terminal. */
  @ValidateIf((config: AppConfig) => config.LOG_FORMAT !== undefined)
  @IsIn(['json', 'pretty'])
  LOG_FORMAT?: 'json' | 'pretty';

  /** Public base of the service, used in absolute links (OAuth metadata, redirects). */
  @IsString()
  @Matches(/^https?:\/\/[^/]+$/, { message: 'must be an http(s) origin without a path' })
  PUBLIC_URL = 'http://localhost:3000';

  /**
   * Origins whose pages may call the API from a browser (CORS), comma-separated; empty, no page
   * of another origin may read an answer.
   */
  @ValidateBy(
    {
      name: 'isOriginList',
      validator: { validate: (value: unknown) => typeof value === 'string' && splitList(value).every(isSerializedOrigin) },
    },
    {
      message:
        'must be comma-separated origins as browsers send them (scheme, lower-case host, a port only when not the default, no path), ' +
        'e.g. https://app.example.com,http://127.0.0.1:5173',
    },
  )
  CORS_ORIGINS = '';

  /** Number of reverse proxies in front of the API whose X-Forwarded-For is trusted. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  TRUST_PROXY_HOPS = 0;

  /**
   * `true` continues the trace context (`traceparent`, `tracestate`, `baggage`) a request comes
   * with, for an API reached only through gateways that set or vet it; otherwise each request
   * starts a new trace linked to the caller's span. Read by apps/api/src/tracing.ts, which
   * starts before this class is loaded; checked here, so that a bad value stops the API.
   */
  @IsIn(['true', 'false'])
  TRACE_TRUST_INBOUND = 'false';

  /**
   * Milliseconds the API keeps serving after SIGTERM, with readiness answering 503, before it
   * drains: time for load balancers to stop sending it requests. Unset: 5000 in production, 0
   * otherwise (`shutdownDelayMs`).
   */
  @ValidateIf((config: AppConfig) => config.SHUTDOWN_DELAY_MS !== undefined)
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SHUTDOWN_DELAY_MS?: number;

  /** Milliseconds the API waits for requests in flight after SIGTERM. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SHUTDOWN_GRACE_MS = 10000;

  /**
   * Per-plan request limits (docs/api.md#rate-limits). Only test runs not about them switch them off, since
   * their many users share one client IP; the failed-login limit always applies.
   */
  @IsIn(['true', 'false'])
  RATE_LIMIT_ENABLED = 'true';

  /**
   * Requests per 60-second window for each plan (docs/api.md#rate-limits); operators may tune them.
   * Unset: the contract's limits, or in development a hundred times them (`planLimits`).
   */
  @ValidateIf((config: AppConfig) => config.RATE_LIMIT_PLAN_LIMITS !== undefined)
  @IsString()
  @Matches(/^free=\d+,pro=\d+,enterprise=\d+$/, { message: 'must look like free=60,pro=600,enterprise=6000' })
  RATE_LIMIT_PLAN_LIMITS?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  /**
   * `true` lets webhooks target loopback and private addresses: local development and tests
   * only, since otherwise a webhook could probe the service's own network (docs/api.md#webhook-urls).
   */
  @IsIn(['true', 'false'])
  WEBHOOK_ALLOW_PRIVATE_TARGETS = 'false';

  /**
   * `true` lets a webhook url be `http://` to a loopback host, a receiver on the developer's own
   * machine (`webhooks listen` of the CLI); nothing else. Unset: true only with NODE_ENV=development
   * (`allowLoopbackHttpWebhookTargets`), so production and tests keep refusing it.
   */
  @ValidateIf((config: AppConfig) => config.WEBHOOK_ALLOW_LOOPBACK_HTTP !== undefined)
  @IsIn(['true', 'false'])
  WEBHOOK_ALLOW_LOOPBACK_HTTP?: 'true' | 'false';

  /**
   * Delay before each delivery attempt, counted from the previous failure (docs/api.md#webhook-retries):
   * one entry per attempt; tests shorten it to milliseconds.
   */
  @IsString()
  @Matches(/^\d+(,\d+)*$/, { message: 'must be comma-separated milliseconds, e.g. 0,60000,300000,1800000,7200000' })
  WEBHOOK_RETRY_SCHEDULE_MS = '0,60000,300000,1800000,7200000';

  /**
   * DNS servers the API asks when it checks a webhook's host, and the worker when it connects to
   * one (comma-separated `ip`, `ip:port` or `[ipv6]:port`); unset, the system's (`dns.getServers()`).
   */
  @ValidateIf((config: AppConfig) => config.WEBHOOK_DNS_SERVERS !== undefined)
  @ValidateBy(
    {
      name: 'isDnsServerList',
      validator: { validate: (value: unknown) => typeof value === 'string' && value.split(',').every((entry) => isDnsServer(entry.trim())) },
    },
    { message: 'must be comma-separated DNS server addresses, e.g. 1.1.1.1,127.0.0.1:5353,[2606:4700:4700::1111]:53' },
  )
  WEBHOOK_DNS_SERVERS?: string;

  /**
   * Host lookups one worker runs at once for the webhooks of one owner (an account): a delivery
   * beyond it waits for a later turn, uncounted, so that one account's slow DNS holds few of the
   * worker's deliveries and resolvers.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_DNS_LOOKUPS_PER_OWNER = 4;

  /** Deliveries one worker sends at once: mostly waiting on receivers, so many per process. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_DELIVERY_CONCURRENCY = 50;

  /** How often the outbox relay looks for committed, unpublished events. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(60000)
  WEBHOOK_RELAY_INTERVAL_MS = 250;

  /**
   * Days events and finished webhook deliveries (with their attempts) are kept before the
   * worker prunes them; 30, as Stripe keeps events. A delivery still pending, and its event,
   * are kept until it ends.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(36500)
  EVENT_RETENTION_DAYS = 30;

  /**
   * argon2id's cost for each new password hash: memory in KiB, passes and lanes (the defaults are
   * the library's). A hash keeps its own parameters, so a change applies to passwords set from then
   * on. At least 2 passes (argon2's minimum); below OWASP's minimum memory (19456 KiB) only
   * outside production: the tests, where every account pays the cost twice, and a laptop.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(4_194_304)
  @ValidateBy(
    {
      name: 'isOwaspMemoryCost',
      validator: { validate: (value: unknown, args) => (typeof value === 'number' && value >= 19456) || !(args?.object as AppConfig).isProduction },
    },
    { message: "is below OWASP's minimum for argon2id (19456 KiB), which production (NODE_ENV=production) refuses" },
  )
  PASSWORD_HASH_MEMORY_KIB = 65536;

  @Transform(toInt)
  @IsInt()
  @Min(2)
  @Max(20)
  PASSWORD_HASH_ITERATIONS = 3;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(16)
  PASSWORD_HASH_PARALLELISM = 4;

  /** Port of the worker's Prometheus `/metrics`; unset, the worker opens no port at all. */
  @ValidateIf((config: AppConfig) => config.WORKER_METRICS_PORT !== undefined)
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  WORKER_METRICS_PORT?: number;

  /** A dependency that answers slower than these is reported as 503, not waited on (fail fast). */
  @TimeoutMs()
  DATABASE_CONNECT_TIMEOUT_MS = 2000;

  @TimeoutMs()
  DATABASE_STATEMENT_TIMEOUT_MS = 2000;

  @TimeoutMs()
  DATABASE_LOCK_TIMEOUT_MS = 1000;

  @TimeoutMs()
  REDIS_COMMAND_TIMEOUT_MS = 1000;

  /**
   * Ends the API process at once at a point of a keyed write (after its COMMIT, or before its key
   * is completed in Redis), for the tests of recovery from a crash there. Refused unless
   * NODE_ENV=test and APP_ENV=test: no deployment can switch it on.
   */
  @ValidateIf((config: AppConfig) => config.IDEMPOTENCY_TEST_CRASH !== undefined)
  @IsIn(['after_commit', 'before_completion'])
  @ValidateBy(
    {
      name: 'isTestOnly',
      validator: { validate: (_value: unknown, args) => isTestRun(args?.object as AppConfig) },
    },
    { message: 'is for tests only: it is refused unless NODE_ENV=test and APP_ENV=test' },
  )
  IDEMPOTENCY_TEST_CRASH?: 'after_commit' | 'before_completion';

  get passwordHashCost(): PasswordHashCost {
    return { memoryCost: this.PASSWORD_HASH_MEMORY_KIB, timeCost: this.PASSWORD_HASH_ITERATIONS, parallelism: this.PASSWORD_HASH_PARALLELISM };
  }

  get logFormat(): 'json' | 'pretty' {
    return this.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json');
  }

  get jwtSecret(): string {
    return this.JWT_SECRET ?? developmentSecret();
  }

  get planLimits(): Record<Plan, number> {
    const setting = this.RATE_LIMIT_PLAN_LIMITS ?? (this.NODE_ENV === 'development' ? DEVELOPMENT_PLAN_LIMITS : CONTRACT_PLAN_LIMITS);
    const limits = Object.fromEntries(
      setting.split(',').map((pair) => pair.split('=')).map(([plan, limit]) => [plan, Number(limit)]),
    );
    return limits as Record<Plan, number>;
  }

  get allowPrivateWebhookTargets(): boolean {
    return this.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true';
  }

  get allowLoopbackHttpWebhookTargets(): boolean {
    return (this.WEBHOOK_ALLOW_LOOPBACK_HTTP ?? (this.NODE_ENV === 'development' ? 'true' : 'false')) === 'true';
  }

  /** The Redis Cluster's seeds as URLs, or undefined when Redis is the single server of REDIS_URL. */
  get redisClusterSeeds(): URL[] | undefined {
    if (this.REDIS_CLUSTER_NODES === undefined) return undefined;
    return splitList(this.REDIS_CLUSTER_NODES).flatMap((entry) => redisClusterSeed(entry) ?? []);
  }

  get webhookDnsServers(): string[] | undefined {
    return this.WEBHOOK_DNS_SERVERS?.split(',').map((server) => server.trim());
  }

  get webhookRetrySchedule(): number[] {
    return this.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number);
  }

  get corsOrigins(): string[] {
    return splitList(this.CORS_ORIGINS);
  }

  get databaseDirectUrl(): string {
    return this.DATABASE_DIRECT_URL ?? this.DATABASE_URL;
  }

  /** What every log line says of where it runs: both settings, since `env` alone was read as either. */
  get logEnvironment(): LogEnvironment {
    return { app_env: this.APP_ENV, node_env: this.NODE_ENV };
  }

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
  }

  /** Production sits behind a load balancer that needs the time; development and tests stop at once. */
  get shutdownDelayMs(): number {
    return this.SHUTDOWN_DELAY_MS ?? (this.isProduction ? 5000 : 0);
  }

}

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigValidationError';
  }
}

/** Reads and validates the environment; throws ConfigValidationError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const optional = [
    'JWT_SECRET',
    'LOG_FORMAT',
    'WORKER_METRICS_PORT',
    'WEBHOOK_DNS_SERVERS',
    'DATABASE_DIRECT_URL',
    'SHUTDOWN_DELAY_MS',
    'WEBHOOK_ALLOW_LOOPBACK_HTTP',
    'RATE_LIMIT_PLAN_LIMITS',
    'IDEMPOTENCY_TEST_CRASH',
  ];
  const known = Object.keys(new AppConfig()).concat(optional);
  const provided = Object.fromEntries(
    known.filter((key) => env[key] !== undefined && env[key] !== '').map((key) => [key, env[key]]),
  );
  const config = plainToInstance(AppConfig, provided);
  const errors = validateSync(config, { skipMissingProperties: false });
  if (errors.length > 0) {
    throw new ConfigValidationError(
      errors.map((error) => {
        // class-validator's default messages start with the property name; custom ones do not.
        const messages = Object.values(error.constraints ?? {}).map((message) =>
          message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message,
        );
        return `${error.property} ${messages.join('; ')}`;
      }),
    );
  }
  return config;
}
