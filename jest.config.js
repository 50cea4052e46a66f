/** Unit tests sit beside their code (*.spec.ts); e2e suites live in test/ (*.e2e-spec.ts). */
const moduleNameMapper = {
  '^@app/(config|database|queue|common|testing|telemetry)(|/.*)$': '<rootDir>/libs/$1/src$2',
  '^@rms/client$': '<rootDir>/libs/client/src',
};
const transform = { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] };

module.exports = {
  transform,
  testTimeout: 30000,
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
      testEnvironment: 'node',
      moduleNameMapper,
      transform,
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testEnvironment: 'node',
      moduleNameMapper,
      transform,
      setupFiles: ['reflect-metadata'],
      setupFilesAfterEnv: ['<rootDir>/test/openapi-response-check.setup.ts'],
    },
  ],
};
