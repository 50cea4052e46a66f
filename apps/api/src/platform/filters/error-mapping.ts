import { HttpException, HttpStatus } from '@nestjs/common';
import { AppError, ErrorCode } from '@app/common';
import { dependencyFailure } from './dependency-failure';

const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  [HttpStatus.BAD_REQUEST]: 'invalid_request',
  [HttpStatus.UNAUTHORIZED]: 'authentication_required',
  [HttpStatus.FORBIDDEN]: 'insufficient_permissions',
  [HttpStatus.NOT_FOUND]: 'not_found',
  [HttpStatus.METHOD_NOT_ALLOWED]: 'method_not_allowed',
  [HttpStatus.CONFLICT]: 'conflict',
  [HttpStatus.PRECONDITION_FAILED]: 'precondition_failed',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'payload_too_large',
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: 'unsupported_media_type',
  [HttpStatus.TOO_MANY_REQUESTS]: 'rate_limit_exceeded',
  [HttpStatus.SERVICE_UNAVAILABLE]: 'service_unavailable',
};

/** The shape body-parser and http-errors give their errors. */
interface HttpErrorLike {
  type?: unknown;
  status?: unknown;
  expose?: unknown;
}

function isHttpErrorLike(error: unknown): error is Error & HttpErrorLike & { status: number } {
  return error instanceof Error && typeof (error as HttpErrorLike).status === 'number';
}

/** body-parser's client errors (`expose: true`), by their `type`. */
function fromBodyParser(error: Error & HttpErrorLike & { status: number }): AppError | null {
  switch (error.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_request', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new AppError('payload_too_large', 'The request body is larger than 1 MiB.');
    case 'parameters.too.many':
      return new AppError('payload_too_large', 'The request body has too many parameters.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', error.message);
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('invalid_request', 'The request body ended before its announced length.');
    default: {
      const code = CODE_BY_STATUS[error.status];
      return code ? new AppError(code, error.message) : null;
    }
  }
}

/**
 * Turns anything thrown into an AppError, or null for an unexpected failure (a 500).
 * Known sources: our own AppErrors, Nest's HttpExceptions (routing, guards, throttler),
 * body-parser's errors, and PostgreSQL or Redis failing to answer (503).
 */
export function toAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  const unavailable = dependencyFailure(error);
  if (unavailable) return unavailable;
  if (isHttpErrorLike(error) && error.expose === true) return fromBodyParser(error);
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code = CODE_BY_STATUS[status];
    if (code === 'not_found') return new AppError('not_found', 'No route matches this path.');
    if (code) return new AppError(code, error.message);
  }
  return null;
}
