import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { AppError } from '@app/common';
import { AnswerWritten, setHeaders } from '../answers/answer-writer';
import { httpRequestOf, httpResponseOf } from '../request/http-arguments';
import { missingPrefixError } from '../routing/api-prefix';
import { RouteIndex } from '../routing/route-index';
import { toAppError } from './error-mapping';
import { OAUTH_FORM_ENDPOINTS, renderOAuthError } from './oauth-error-form';

/**
 * Renders every error as `{ error: { code, message, details? } }`, or in RFC 6749 form on the
 * OAuth token, revocation and introspection endpoints. A 500 never shows internals:
 * the exception goes to `res.err`, where the request log line picks it up with its stack and
 * the request id. `AnswerWritten` is no error: an idempotent replay was written where it was
 * decided, and only stopped the route.
 */
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  constructor(private readonly routes: RouteIndex) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = httpRequestOf(host);
    const res = httpResponseOf<Response & { err?: unknown }>(host);
    if (exception instanceof AnswerWritten) return;
    let error = toAppError(exception);
    // A route miss (Nest's 404) may be a wrong method or prefix; a handler's own not_found is its answer.
    if (error?.code === 'not_found' && !(exception instanceof AppError)) {
      const allowed = this.routes.allowedMethods(req.path);
      if (allowed.length > 0 && req.method === 'OPTIONS') {
        if (!res.headersSent) res.status(204).setHeader('Allow', [...allowed, 'OPTIONS'].join(', ')).end();
        return;
      }
      if (allowed.length > 0) {
        error = new AppError('method_not_allowed', `Use one of ${allowed.join(', ')} on this path.`, undefined, {
          Allow: allowed.join(', '),
        });
      } else {
        error = missingPrefixError(this.routes, req.method, req.path) ?? error;
      }
    }
    if (!error) {
      res.err = exception instanceof Error ? exception : new Error(String(exception));
      error = new AppError('internal_server_error', 'Something went wrong on our side. Quote the X-Request-ID.');
    }
    if (res.headersSent) return;
    if (error.headers) setHeaders(res, error.headers);
    const answer = errorAnswerFor(req.path, error);
    if (answer.noStore) res.setHeader('Cache-Control', 'no-store');
    res.status(error.status).json(answer.body);
  }
}

/**
 * An error in the form its path answers in: RFC 6749 on the authorization server's machine
 * endpoints (never cached), the envelope everywhere else.
 */
export function errorAnswerFor(path: string, error: AppError): { body: object; noStore: boolean } {
  if (OAUTH_FORM_ENDPOINTS.test(path)) return { body: renderOAuthError(error), noStore: true };
  return { body: renderError(error), noStore: false };
}

/** A client fixes a request from its first problems; a hostile one cannot make the answer grow. */
export const MAX_ERROR_DETAILS = 100;

export function renderError(error: AppError): { error: Record<string, unknown> } {
  const details = error.details ?? [];
  const capped = details.length > MAX_ERROR_DETAILS;
  const message = capped ? `${error.message} The first ${MAX_ERROR_DETAILS} of ${details.length} problems are listed.` : error.message;
  const body: Record<string, unknown> = { code: error.code, message };
  if (details.length > 0) body.details = capped ? details.slice(0, MAX_ERROR_DETAILS) : details;
  return { error: body };
}
