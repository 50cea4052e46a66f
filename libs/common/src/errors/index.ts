export * from './app-error';
export * from './error-code';
