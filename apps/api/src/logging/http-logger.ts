import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LevelWithSilent, Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { newId } from '@app/common';
import { redactHeaders, redactUrl } from './log-redaction';

/**
 * Express adds `originalUrl` and `ip` (the client address after the trusted proxies);
 * `id` comes from the request id middleware mounted before.
 */
type LoggedRequest = IncomingMessage & { originalUrl?: string; ip?: string };

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

function serializeResponse(res: ServerResponse): Record<string, unknown> {
  return { statusCode: res.statusCode };
}

function levelFor(req: LoggedRequest, res: ServerResponse, error?: Error): LevelWithSilent {
  if (error || res.statusCode >= 500) return 'error';
  if (res.statusCode < 400 && OPERATIONAL_PATH.test(req.url ?? '')) return 'debug';
  return 'info';
}

export type HttpLogMiddleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * One log line per request, written when the response ends, carrying the request id, the
 * method, the redacted URL and headers, the status and the duration; never a body. Mounted
 * right after the request id middleware so that every request is logged, /v1 and 404s too.
 * `req.log` (and so Nest's logger inside a request) carries `requestId` on every line.
 */
export function createHttpLogger(root: Logger): HttpLogMiddleware {
  return pinoHttp<LoggedRequest>({
    logger: root,
    genReqId: (req) => req.id ?? newId('req'),
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'requestId' },
    wrapSerializers: false,
    serializers: { req: serializeRequest, res: serializeResponse },
    customLogLevel: levelFor,
  });
}
