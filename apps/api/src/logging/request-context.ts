import { AsyncLocalStorage } from 'node:async_hooks';

/** What a log line written while a request is handled learns about that request. */
export interface RequestLogContext {
  requestId: string;
}

/** Entered once per request by the request logger; read by Nest's logger for every line. */
export const requestLogContext = new AsyncLocalStorage<RequestLogContext>();
