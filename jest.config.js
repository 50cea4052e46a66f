/**
 * Three tiers, each a Jest project with its own command (README, "Tests"):
 * - unit: the *.spec.ts beside the code, no I/O at all (test/unit-tier.setup.ts refuses the
 *   database, Redis, child processes and hosts beyond loopback), no global setup.
 * - api: the suites that speak to the API or the run's PostgreSQL and Redis. One built API and
 *   worker serve the whole tier (test/api-tier.global-setup.ts); the suites that only speak HTTP
 *   are their clients (connectTierApi), the others build the app in-process.
 * - system: processes, faults, topology, browsers, the pooler and the cluster; they start the
 *   built API, worker and CLI from dist/.
 * A spec beside the code that needs the run's services is named in SERVICE_SPECS or
 * SYSTEM_SPECS; a suite of test/ that starts processes is named in SYSTEM_SUITES.
 */
const moduleNameMapper = {
  '^@app/(config|database|queue|common|testing|telemetry)(|/.*)$': '<rootDir>/libs/$1/src$2',
  '^@rms/client$': '<rootDir>/libs/client/src',
};
const transform = { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] };

/** Specs beside the code that use the run's PostgreSQL or Redis, or start a child process. */
const SERVICE_SPECS = [
  'apps/api/src/auth/credential-revocation.service.spec.ts',
  'apps/api/src/console/access/form-submissions.spec.ts',
  'apps/api/src/platform/idempotency/idempotency.store.spec.ts',
  'apps/api/src/platform/redis/fixed-window.storage.spec.ts',
  'apps/api/src/platform/redis/redis-pipeline-batch.spec.ts',
  'apps/api/src/rate-limit/rate-limit.guard.spec.ts',
  'apps/api/src/session/session.store.spec.ts',
  'apps/worker/src/delivery/webhook-sender.spec.ts',
  'apps/worker/src/job-drain.service.spec.ts',
  'libs/database/src/framework-canaries.spec.ts',
  'libs/database/src/redis/redis-spans.spec.ts',
  'libs/database/src/statement-deadline.spec.ts',
  'apps/api/src/platform/idempotency/write-ledger.spec.ts',
  'libs/common/src/log-line-options.spec.ts',
];

/** Specs beside the code that run the TypeScript compiler. */
const SYSTEM_SPECS = ['libs/client/src/compiles-for-browsers.spec.ts'];

/** Suites of test/ that start processes, break dependencies, drive a browser or build a topology. */
const SYSTEM_SUITES = [
  'cli',
  'console',
  'console-forms',
  'console-lifecycle',
  'console-visibility',
  'cors-browser',
  'credential-revocation-replicas',
  'delivery-faults',
  'dependency-faults',
  'deployment-manifests',
  'idempotency-crash',
  'idempotency-faults',
  'legacy-migrate',
  'logging',
  'oauth-browser',
  'oauth-interop',
  'openapi-reference',
  'pgbouncer',
  'platform',
  'rate-limit-replicas',
  'readme-first-requests',
  'rolling-restart',
  'runtime',
  'sdk-journey',
  'sdk-package',
  'sdk-runtimes',
  'startup',
  'topology',
  'tracing',
  'webhook-delivery',
  'webhook-delivery-dns',
  'webhook-delivery-guard',
  'webhook-delivery-unstorable',
  'webhook-lifecycle-delivery',
  'webhooks-listen',
  'worker',
  'worker-faults',
];

const escaped = (path) => path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const anyOf = (paths) => `^<rootDir>/(${paths.map(escaped).join('|')})$`;
const systemSuitePaths = SYSTEM_SUITES.map((name) => `test/${name}.e2e-spec.ts`);

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleNameMapper,
  transform,
};
/** The run's own database and Redis prefix (test/global-setup.ts), for the tiers that use them. */
const withServices = {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  setupFiles: ['reflect-metadata'],
  setupFilesAfterEnv: ['<rootDir>/test/openapi-response-check.setup.ts'],
};

module.exports = {
  testTimeout: 30000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', anyOf([...SERVICE_SPECS, ...SYSTEM_SPECS])],
      setupFilesAfterEnv: ['<rootDir>/test/unit-tier.setup.ts'],
    },
    {
      ...common,
      ...withServices,
      globalSetup: '<rootDir>/test/api-tier.global-setup.ts',
      globalTeardown: '<rootDir>/test/api-tier.global-teardown.ts',
      displayName: 'api',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', ...SERVICE_SPECS.map((path) => `<rootDir>/${path}`)],
      testPathIgnorePatterns: ['/node_modules/', anyOf(systemSuitePaths)],
    },
    {
      ...common,
      ...withServices,
      displayName: 'system',
      testMatch: [...systemSuitePaths, ...SYSTEM_SPECS].map((path) => `<rootDir>/${path}`),
    },
  ],
};
