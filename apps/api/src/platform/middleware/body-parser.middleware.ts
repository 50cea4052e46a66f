import { json, urlencoded } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { AppError, InvalidRequestError } from '@app/common';
import { toAppError } from '../filters/error-mapping';
import { assertInputText } from '../validation/input-text-rules';

export const BODY_LIMIT = '1mb';

type Parser = (req: Request, res: Response, next: (error?: unknown) => void) => void;

const parseJson: Parser = json({ limit: BODY_LIMIT, strict: false });
const parseForm: Parser = urlencoded({ limit: BODY_LIMIT, extended: false });

/** Paths that take HTML forms (OAuth token endpoint and consent page, the developer console) besides JSON. */
const FORM_PATHS = /^\/(?:oauth|console)\//;

const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function hasBody(req: Request): boolean {
  if (BODYLESS_METHODS.has(req.method)) return false;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** Runs a body-parser parser; its client errors become AppErrors here, before Nest's exception layer rewords them. */
function run(parser: Parser, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) =>
    parser(req, res, (error) => {
      if (!error) return resolve();
      reject(toAppError(error) ?? (error instanceof Error ? error : new Error('The request body could not be read.')));
    }),
  );
}

/**
 * Parses request bodies, the last of the early middleware (`configureApiApp`): malformed JSON and
 * non-object bodies are `invalid_request`, other media types 415, bodies over 1 MiB 413, each
 * handed to Nest's exception layer and so to the exception filter. Then the query and the body
 * go through the one text rule (no NUL, no lone surrogate, bounded depth and size) before any
 * handler sees them. One Express layer rather than Nest middleware: Nest mounts a middleware as
 * a route per excluded prefix path, which every request was matched against.
 */
export function bodyParserMiddleware(req: Request, res: Response, next: NextFunction): void {
  // Express 5 parses the query string again at every read of `req.query`, a getter of its
  // request prototype: an own property parsed once here shadows it (docs/decisions.md).
  Object.defineProperty(req, 'query', { value: req.query, writable: true, enumerable: true, configurable: true });
  // Most requests have no body: they pass without a promise.
  if (!hasBody(req)) {
    req.body = {};
    assertInputText(req.query, req.body);
    return next();
  }
  readBody(req, res).then(() => next(), next);
}

/** Parses the body by its media type, then applies the text rule to the query and the body. */
async function readBody(req: Request, res: Response): Promise<void> {
  if (FORM_PATHS.test(req.path) && req.is('application/x-www-form-urlencoded')) {
    await run(parseForm, req, res);
  } else {
    await readJson(req, res);
  }
  assertInputText(req.query, req.body);
}

async function readJson(req: Request, res: Response): Promise<void> {
  if (!req.is(['application/json', 'application/*+json'])) {
    throw new AppError('unsupported_media_type', 'Send the request body as application/json.');
  }
  await run(parseJson, req, res);
  const body: unknown = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidRequestError('The request body must be a JSON object.');
  }
}
