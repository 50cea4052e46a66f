import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Level, Logger } from 'pino';
import { requestStateOf } from '../platform/request/request-state';
import { redactHeaders, redactUrl } from './log-redaction';
import { requestLogContext } from './request-context';

/**
 * Express adds `originalUrl` and `ip` (the client address after the trusted proxies); `id`
 * comes from the request id middleware mounted before. The exception filter leaves a 500's
 * error in `res.err`.
 */
type LoggedRequest = IncomingMessage & { id: string; originalUrl?: string; ip?: string };
type LoggedResponse = ServerResponse & { err?: Error };

/** Probes and scrapes that succeed are logged at debug so that they do not drown the rest. */
const OPERATIONAL_PATH = /^\/(health\/|metrics(\?|$))/;

function serializeRequest(req: LoggedRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.originalUrl ?? req.url ?? ''),
    headers: redactHeaders(req.headers),
    remoteAddress: req.ip ?? req.socket?.remoteAddress,
  };
}

const failed = (res: LoggedResponse): boolean => res.err !== undefined || res.statusCode >= 500;

function levelFor(req: LoggedRequest, res: LoggedResponse): Level {
  if (failed(res)) return 'error';
  if (res.statusCode < 400 && OPERATIONAL_PATH.test(req.url ?? '')) return 'debug';
  return 'info';
}

function messageFor(res: LoggedResponse): string {
  if (failed(res)) return 'request errored';
  return res.writableFinished ? 'request completed' : 'request aborted';
}

export type HttpLogMiddleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * One log line per request, written when the response closes, carrying the request id, the
 * method, the redacted URL and headers, the status and the duration; never a body. Mounted
 * right after the request id middleware so that every request is logged, /v1 and 404s too.
 * The rest of the request runs inside its log context, so Nest's own lines carry `requestId`.
 * The line is built only when its level is enabled, and no logger is made per request; the log
 * context is the request's state itself, which already holds the id.
 */
export function createHttpLogger(root: Logger): HttpLogMiddleware {
  return (incoming, response, next) => {
    const req = incoming as LoggedRequest;
    const res = response as LoggedResponse;
    const started = performance.now();
    res.once('close', () => {
      const level = levelFor(req, res);
      if (!root.isLevelEnabled(level)) return;
      const line: Record<string, unknown> = {
        requestId: req.id,
        req: serializeRequest(req),
        res: { statusCode: res.statusCode },
        responseTime: Math.round(performance.now() - started),
      };
      if (level === 'error') line.err = res.err ?? new Error(`failed with status code ${res.statusCode}`);
      root[level](line, messageFor(res));
    });
    requestLogContext.run(requestStateOf(req), next);
  };
}
