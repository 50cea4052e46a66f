export * from './auth-context';
export * from './errors';
export * from './ids';
export * from './pagination';
export * from './log-line-options';
export * from './event-kinds';
export * from './webhook-target';
export * from './nest-pino-logger';
