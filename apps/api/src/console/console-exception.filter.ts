import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { AppError } from '@app/common';
import { toAppError } from '../platform/filters/error-mapping';
import { httpRequestOf, httpResponseOf } from '../platform/request/http-arguments';
import { SignInRequired } from './access/console-session.guard';
import type { ConsoleRequest } from './access/signed-in-user';
import { consolePaths } from './console-paths';
import { errorPage } from './rendering/error-page';
import { seeOther, sendPage } from './rendering/page-response';

/**
 * Errors on console routes are pages, not the API's JSON: the service's own message (a 404 for
 * another user's webhook, as the API answers) in the console's frame. No session is the sign-in
 * page, coming back after. A 500 shows no internals; the exception goes to `res.err` for the
 * request log line, as AppExceptionFilter does.
 */
@Catch()
export class ConsoleExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const req = httpRequestOf<ConsoleRequest>(host);
    const res = httpResponseOf<Response & { err?: unknown }>(host);
    if (res.headersSent) return;
    if (exception instanceof SignInRequired) {
      const query = exception.returnTo ? `?${new URLSearchParams({ next: exception.returnTo }).toString()}` : '';
      seeOther(res, `${consolePaths.signIn}${query}`);
      return;
    }
    let error = toAppError(exception);
    if (!error) {
      res.err = exception instanceof Error ? exception : new Error(String(exception));
      error = new AppError('internal_server_error', 'Something went wrong on our side. Quote the request id below.');
    }
    for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
    sendPage(res, errorPage({ status: error.status, message: error.message, details: error.details, user: req.signedIn, requestId: req.id }));
  }
}
