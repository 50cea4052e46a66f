import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerSpanMiddleware, ServerSpanSource } from './server-span-source';
import { isTracingOn } from './tracing';

const passThrough = (_req: unknown, _res: unknown, next: () => void): void => next();

/**
 * Middleware that opens the server span of each request and runs the rest of it in the span's
 * context, mounted before any other so that the span covers the whole request; it does nothing
 * when tracing is off. The HTTP instrumentation traces outgoing requests only: the app knows its
 * route and its client, and this decides sampling before any attribute is made.
 */
export function serverSpanMiddleware<Req extends IncomingMessage, Res extends ServerResponse>(
  source: ServerSpanSource<Req, Res>,
): ServerSpanMiddleware<Req, Res> {
  if (!isTracingOn()) return passThrough;
  // Required here, not imported: with tracing off the semantic conventions are never loaded.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { recordServerSpans } = require('./server-span-recorder') as typeof import('./server-span-recorder');
  return recordServerSpans(source);
}
