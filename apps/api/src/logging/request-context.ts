import { AsyncLocalStorage } from 'node:async_hooks';

/** What a log line written while a request is handled learns about that request. */
export interface RequestLogContext {
  requestId: string;
}

/**
 * Entered once per request by the request logger, with the request's own state (RequestState) as
 * its store; read by Nest's logger for every line. An async context rather than the request: a
 * service that logs is not handed the request it serves.
 */
export const requestLogContext = new AsyncLocalStorage<RequestLogContext>();
