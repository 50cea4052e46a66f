export * from './test-environment';
export * from './source-process';
export * from './error-assertions';
export * from './private-servers';
export * from './built-api';
export * from './built-worker';
export * from './https-receiver';
export * from './wait-until';
