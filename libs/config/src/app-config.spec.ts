import { AppConfig, ConfigValidationError, loadConfig } from './app-config';

const VALID_SECRET = 'x'.repeat(32);

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigValidationError');
}

describe('loadConfig (docs/api.md#processes)', () => {
  it('refuses to start without JWT_SECRET unless NODE_ENV=development is set explicitly', () => {
    for (const env of [{}, { NODE_ENV: 'production' }, { NODE_ENV: 'test' }]) {
      expect(problemsOf(env)).toEqual([expect.stringMatching(/^JWT_SECRET .*is required unless NODE_ENV=development is set/)]);
    }
  });

  it('takes LOG_FORMAT json or pretty, and refuses anything else', () => {
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(problemsOf({ JWT_SECRET: VALID_SECRET, LOG_FORMAT: 'xml' })).toEqual([expect.stringMatching(/^LOG_FORMAT /)]);
  });

  it('leaves the worker metrics port unset by default and reads it when given', () => {
    expect(loadConfig({ JWT_SECRET: VALID_SECRET }).WORKER_METRICS_PORT).toBeUndefined();
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, WORKER_METRICS_PORT: '9464' }).WORKER_METRICS_PORT).toBe(9464);
  });

  it('takes DATABASE_DIRECT_URL as given, or DATABASE_URL when it is unset', () => {
    const pooled = { JWT_SECRET: VALID_SECRET, DATABASE_URL: 'postgres://app@pgbouncer:6432/rms' };
    expect(loadConfig(pooled).databaseDirectUrl).toBe('postgres://app@pgbouncer:6432/rms');
    expect(loadConfig({ ...pooled, DATABASE_DIRECT_URL: 'postgres://app@db:5432/rms' }).databaseDirectUrl).toBe('postgres://app@db:5432/rms');
  });

  it('defaults NODE_ENV to production', () => {
    expect(loadConfig({ JWT_SECRET: VALID_SECRET }).NODE_ENV).toBe('production');
  });

  it('in explicit development without a secret, signs with a random one made at start, never a built-in one', () => {
    const config = loadConfig({ NODE_ENV: 'development' });
    expect(config).toBeInstanceOf(AppConfig);
    expect(config.PORT).toBe(3000);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.SHUTDOWN_GRACE_MS).toBe(10000);
    expect(config.jwtSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(loadConfig({ NODE_ENV: 'development' }).jwtSecret).toBe(config.jwtSecret);
  });

  it('reads numbers and values from the environment', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgresql://app:pw@db:5432/rms',
      REDIS_URL: 'rediss://cache:6380',
      LOG_LEVEL: 'debug',
      NODE_ENV: 'production',
      JWT_SECRET: VALID_SECRET,
      SHUTDOWN_GRACE_MS: '2500',
    });
    expect(config.PORT).toBe(8080);
    expect(config.DATABASE_URL).toBe('postgresql://app:pw@db:5432/rms');
    expect(config.LOG_LEVEL).toBe('debug');
    expect(config.SHUTDOWN_GRACE_MS).toBe(2500);
    expect(config.jwtSecret).toBe(VALID_SECRET);
    expect(config.isProduction).toBe(true);
  });

  it('keeps serving after SIGTERM for 5 s in production unless told otherwise, and not at all elsewhere', () => {
    expect(loadConfig({ JWT_SECRET: VALID_SECRET }).shutdownDelayMs).toBe(5000);
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, NODE_ENV: 'test' }).shutdownDelayMs).toBe(0);
    expect(loadConfig({ NODE_ENV: 'development' }).shutdownDelayMs).toBe(0);
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, SHUTDOWN_DELAY_MS: '0' }).shutdownDelayMs).toBe(0);
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, NODE_ENV: 'test', SHUTDOWN_DELAY_MS: '1500' }).shutdownDelayMs).toBe(1500);
  });

  it('admits http:// loopback webhook targets in development only, unless WEBHOOK_ALLOW_LOOPBACK_HTTP says otherwise', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).allowLoopbackHttpWebhookTargets).toBe(true);
    expect(loadConfig({ JWT_SECRET: VALID_SECRET }).allowLoopbackHttpWebhookTargets).toBe(false);
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, NODE_ENV: 'test' }).allowLoopbackHttpWebhookTargets).toBe(false);
    expect(loadConfig({ NODE_ENV: 'development', WEBHOOK_ALLOW_LOOPBACK_HTTP: 'false' }).allowLoopbackHttpWebhookTargets).toBe(false);
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, NODE_ENV: 'test', WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' }).allowLoopbackHttpWebhookTargets).toBe(true);
    expect(problemsOf({ JWT_SECRET: VALID_SECRET, WEBHOOK_ALLOW_LOOPBACK_HTTP: 'yes' })).toEqual([expect.stringMatching(/^WEBHOOK_ALLOW_LOOPBACK_HTTP /)]);
  });

  it("keeps the contract's plan limits outside development, a hundred times them in development, and RATE_LIMIT_PLAN_LIMITS over both", () => {
    expect(loadConfig({ JWT_SECRET: VALID_SECRET }).planLimits).toEqual({ free: 60, pro: 600, enterprise: 6000 });
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, NODE_ENV: 'test' }).planLimits).toEqual({ free: 60, pro: 600, enterprise: 6000 });
    expect(loadConfig({ NODE_ENV: 'development' }).planLimits).toEqual({ free: 6000, pro: 60000, enterprise: 600000 });
    const tuned = { RATE_LIMIT_PLAN_LIMITS: 'free=5,pro=50,enterprise=500' };
    expect(loadConfig({ NODE_ENV: 'development', ...tuned }).planLimits).toEqual({ free: 5, pro: 50, enterprise: 500 });
    expect(problemsOf({ JWT_SECRET: VALID_SECRET, RATE_LIMIT_PLAN_LIMITS: 'free=lots' })).toEqual([expect.stringMatching(/^RATE_LIMIT_PLAN_LIMITS /)]);
  });

  it('reads Redis Cluster seeds as host:port or URLs, and without them uses REDIS_URL alone', () => {
    expect(loadConfig({ JWT_SECRET: VALID_SECRET }).redisClusterSeeds).toBeUndefined();
    const seeds = loadConfig({ JWT_SECRET: VALID_SECRET, REDIS_CLUSTER_NODES: '10.0.0.1:7000, cache-2:7001,rediss://app:s%3Acret@[::1]:7002' }).redisClusterSeeds;
    expect(seeds?.map((seed) => [seed.protocol, seed.hostname, seed.port])).toEqual([
      ['redis:', '10.0.0.1', '7000'],
      ['redis:', 'cache-2', '7001'],
      ['rediss:', '[::1]', '7002'],
    ]);
    expect(decodeURIComponent(seeds?.[2].password ?? '')).toBe('s:cret');
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', JWT_SECRET: VALID_SECRET }).PORT).toBe(3000);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '3000.5'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['DATABASE_URL', 'mysql://db/rms'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_DIRECT_URL', 'mysql://db/rms'],
    ['REDIS_URL', 'http://cache:6379'],
    ['REDIS_CLUSTER_NODES', 'cache-1'],
    ['REDIS_CLUSTER_NODES', 'cache-1:7000,http://cache-2:7000'],
    ['REDIS_CLUSTER_NODES', 'redis://cache-1:7000/2'],
    ['REDIS_CLUSTER_NODES', ' , '],
    ['LOG_LEVEL', 'verbose'],
    ['NODE_ENV', 'staging'],
    ['APP_ENV', 'prod'],
    ['SHUTDOWN_GRACE_MS', 'soon'],
    ['SHUTDOWN_DELAY_MS', '-1'],
    ['PUBLIC_URL', 'https://api.example.com/v2'],
    ['WORKER_METRICS_PORT', '0'],
    ['WORKER_METRICS_PORT', 'metrics'],
    ['TRACE_TRUST_INBOUND', 'yes'],
  ])('refuses %s=%s and names the variable', (name, value) => {
    const problems = problemsOf({ JWT_SECRET: VALID_SECRET, [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name} `));
  });

  it('takes IDEMPOTENCY_TEST_CRASH in a test run only, and refuses it anywhere else', () => {
    const test = { JWT_SECRET: VALID_SECRET, NODE_ENV: 'test', APP_ENV: 'test' };
    expect(loadConfig({ ...test, IDEMPOTENCY_TEST_CRASH: 'after_commit' }).IDEMPOTENCY_TEST_CRASH).toBe('after_commit');
    expect(loadConfig(test).IDEMPOTENCY_TEST_CRASH).toBeUndefined();
    for (const env of [{ NODE_ENV: 'production' }, { APP_ENV: 'live' }, { NODE_ENV: 'development' }]) {
      expect(problemsOf({ ...test, ...env, IDEMPOTENCY_TEST_CRASH: 'before_completion' })).toEqual([
        expect.stringMatching(/^IDEMPOTENCY_TEST_CRASH is for tests only/),
      ]);
    }
    expect(problemsOf({ ...test, IDEMPOTENCY_TEST_CRASH: 'sometimes' })).toEqual([expect.stringMatching(/^IDEMPOTENCY_TEST_CRASH /)]);
  });

  it("takes an argon2id cost below OWASP's minimum outside production only", () => {
    const test = { JWT_SECRET: VALID_SECRET, NODE_ENV: 'test', APP_ENV: 'test' };
    expect(loadConfig(test).passwordHashCost).toEqual({ memoryCost: 65536, timeCost: 3, parallelism: 4 });
    const cheap = { PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_ITERATIONS: '2', PASSWORD_HASH_PARALLELISM: '1' };
    expect(loadConfig({ ...test, ...cheap }).passwordHashCost).toEqual({ memoryCost: 1024, timeCost: 2, parallelism: 1 });
    expect(loadConfig({ ...test, ...cheap, NODE_ENV: 'development' }).passwordHashCost.memoryCost).toBe(1024);
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, PASSWORD_HASH_MEMORY_KIB: '19456', PASSWORD_HASH_ITERATIONS: '2' }).passwordHashCost).toEqual({
      memoryCost: 19456,
      timeCost: 2,
      parallelism: 4,
    });
    expect(problemsOf({ ...test, NODE_ENV: 'production', ...cheap })).toEqual([expect.stringMatching(/^PASSWORD_HASH_MEMORY_KIB is below OWASP's minimum/)]);
    expect(problemsOf({ ...test, PASSWORD_HASH_ITERATIONS: '1' })).toEqual([expect.stringMatching(/^PASSWORD_HASH_ITERATIONS /)]);
    expect(problemsOf({ ...test, PASSWORD_HASH_MEMORY_KIB: '512' })).toEqual([expect.stringMatching(/^PASSWORD_HASH_MEMORY_KIB /)]);
    expect(problemsOf({ ...test, PASSWORD_HASH_PARALLELISM: '0' })).toEqual([expect.stringMatching(/^PASSWORD_HASH_PARALLELISM /)]);
  });

  it('refuses a JWT_SECRET shorter than 32 characters', () => {
    const problems = problemsOf({ JWT_SECRET: 'short-secret' });
    expect(problems).toEqual([expect.stringMatching(/^JWT_SECRET .*at least 32 characters/)]);
  });

  it('names every bad variable at once, in a message fit for the console', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://db', NODE_ENV: 'production' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigValidationError);
    const error = caught as ConfigValidationError;
    expect(error.problems.map((problem) => problem.split(' ')[0]).sort()).toEqual(['DATABASE_URL', 'JWT_SECRET', 'PORT']);
    expect(error.message).toMatch(/^Invalid configuration:\n {2}- /);
  });

  it('allows no cross-origin page by default, and reads CORS_ORIGINS as a list of exact origins', () => {
    expect(loadConfig({ JWT_SECRET: VALID_SECRET }).corsOrigins).toEqual([]);
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, CORS_ORIGINS: '' }).corsOrigins).toEqual([]);
    const origins = 'https://app.example.com, http://127.0.0.1:5173,http://[::1]:8080,https://admin.example.com:8443';
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, CORS_ORIGINS: origins }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://127.0.0.1:5173',
      'http://[::1]:8080',
      'https://admin.example.com:8443',
    ]);
  });

  it.each([
    ['a path', 'https://app.example.com/app'],
    ['a trailing slash', 'https://app.example.com/'],
    ['no scheme', 'app.example.com'],
    ['another scheme', 'ftp://files.example.com'],
    ['a wildcard', '*'],
    ['the null origin', 'null'],
    ['a capital letter, which browsers never send', 'https://App.example.com'],
    ['the default port, which browsers leave out', 'https://app.example.com:443'],
    ['credentials', 'https://user@app.example.com'],
    ['a query', 'https://app.example.com?x=1'],
    ['an empty entry', 'https://app.example.com,,http://127.0.0.1:5173'],
  ])('refuses CORS_ORIGINS with %s and names the variable', (_case, value) => {
    expect(problemsOf({ JWT_SECRET: VALID_SECRET, CORS_ORIGINS: value })).toEqual([
      expect.stringMatching(/^CORS_ORIGINS must be comma-separated origins .*no path/),
    ]);
  });

  it('keeps events 30 days unless EVENT_RETENTION_DAYS, a positive whole number of days, says otherwise', () => {
    expect(loadConfig({ JWT_SECRET: VALID_SECRET }).EVENT_RETENTION_DAYS).toBe(30);
    expect(loadConfig({ JWT_SECRET: VALID_SECRET, EVENT_RETENTION_DAYS: '90' }).EVENT_RETENTION_DAYS).toBe(90);
    for (const value of ['0', '-1', '7.5', 'a week']) {
      expect(problemsOf({ JWT_SECRET: VALID_SECRET, EVENT_RETENTION_DAYS: value })).toEqual([expect.stringMatching(/^EVENT_RETENTION_DAYS /)]);
    }
  });

  it('ignores variables it does not know', () => {
    expect(() => loadConfig({ SOMETHING_ELSE: 'x', PATH: '/usr/bin', JWT_SECRET: VALID_SECRET })).not.toThrow();
  });
});
