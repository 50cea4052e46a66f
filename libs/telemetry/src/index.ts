export { SpanKind } from '@opentelemetry/api';
export * from './server-span';
export * from './server-span-source';
export * from './spans';
export * from './trace-context';
export * from './trace-log-fields';
export * from './tracing';
export * from './tracing-setup';
export * from './tracing-shutdown';
