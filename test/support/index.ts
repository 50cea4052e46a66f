/**
 * What e2e suites share: the app-independent helpers of `@app/testing`, plus the test app
 * builder and factories, which build on the API app and so live beside the suites, not in a lib.
 */
export * from '@app/testing';
export * from './factories';
export * from './api-under-test';
export * from './test-app';
export * from './replica-pair';
