export * from './factories';
export * from './test-app';
export * from './test-environment';
export * from './source-process';
export * from './error-assertions';
export * from './https-receiver';
