import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';
import { Paginated } from '@app/common';
import { isCapturingSends } from '../idempotency/send-capture';

type Envelope = { data: unknown; meta?: Record<string, unknown> } | undefined;

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Statuses that carry no body: Express strips it, so they keep its path. */
const BODYLESS_STATUSES = new Set([204, 205, 304]);

/** A record as `{ data }`, a Paginated as `{ data, meta }`, nothing as no body. */
function toEnvelope(value: unknown): Envelope {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Paginated) return { data: value.data, meta: value.meta };
  return { data: value };
}

/**
 * Whether Express's `res.json` would do nothing but serialize, label and send: not a HEAD
 * request, not a conditional one (its freshness check could make a 304), no media type chosen
 * by the handler, no bodyless status, and no capture of this response's sends (the
 * Idempotency-Key guard stores the answer through one).
 */
function sendsPlainJson(res: Response, status: number): boolean {
  const headers = res.req.headers;
  return (
    res.req.method !== 'HEAD' &&
    headers['if-none-match'] === undefined &&
    headers['if-modified-since'] === undefined &&
    !BODYLESS_STATUSES.has(status) &&
    res.getHeader('content-type') === undefined &&
    !isCapturingSends(res)
  );
}

/**
 * A constructor of Node's `base` whose instances are made with `prototype` as theirs: Express
 * gives every request and response its own prototypes (`Object.setPrototypeOf` in `app.handle`),
 * and V8 changes an object's prototype by replaying its whole map, about 5% of a read by id; given
 * the prototype it already has, that call returns at once.
 */
function madeWithPrototype<T extends typeof IncomingMessage | typeof ServerResponse>(base: T, prototype: object): T {
  function Made(this: unknown, ...args: unknown[]): object {
    return Reflect.construct(base, args, Made) as object;
  }
  Made.prototype = prototype;
  return Made as unknown as T;
}

/**
 * Express as Nest drives it, with every handler's result sent in the envelope. The envelope
 * is applied where Nest sends a result rather than in an interceptor: Nest builds an rxjs
 * chain and binds an AsyncResource per interceptor on every request. Errors never pass here;
 * the exception filter writes them. An answer already written where it was decided (a 304, an
 * idempotent replay: `writeAnswer`) is left alone, and so is its status.
 *
 * A plain JSON answer is written directly, with the bytes and headers `res.json` would give
 * (the app sets no JSON replacer, spaces or escaping): Express's `send` parses and rebuilds the
 * Content-Type twice and checks freshness on every answer, about 5% of a read's time.
 */
export class EnvelopeExpressAdapter extends ExpressAdapter {
  /** The HTTP server Nest's adapter makes, with requests and responses born with Express's prototypes. */
  override initHttpServer(options: NestApplicationOptions): void {
    if (options.httpsOptions || options.forceCloseConnections) return super.initHttpServer(options);
    const app = this.getInstance<Express>();
    const server = createServer(
      { IncomingMessage: madeWithPrototype(IncomingMessage, app.request), ServerResponse: madeWithPrototype(ServerResponse, app.response) },
      app,
    );
    this.setHttpServer(server);
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (response.headersSent) return response;
    const envelope = toEnvelope(body);
    if (envelope === undefined || !sendsPlainJson(response, statusCode ?? response.statusCode)) {
      return super.reply(response, envelope, statusCode);
    }
    if (statusCode) response.statusCode = statusCode;
    // Encoded once: a string body is walked three times (its UTF-8 length here, again in Node's
    // `end`, then its encoding into the socket), and a page of 20 is 4 KiB.
    const bytes = Buffer.from(JSON.stringify(envelope));
    response.setHeader('Content-Type', JSON_CONTENT_TYPE);
    response.setHeader('Content-Length', bytes.length);
    return response.end(bytes);
  }
}
