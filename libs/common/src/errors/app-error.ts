import { ERROR_STATUS, ErrorCode } from './error-code';

export interface FieldProblem {
  field: string;
  message: string;
}

/** The base of every error the service raises on purpose; the exception filter renders it. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
    this.status = ERROR_STATUS[code];
  }
}

export class InvalidRequestError extends AppError {
  constructor(message: string, details?: FieldProblem[]) {
    super('invalid_request', message, details);
  }
}

export class ValidationError extends AppError {
  constructor(details: FieldProblem[], message = 'The request has invalid fields.') {
    super('validation_error', message, details);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

export class AuthenticationRequiredError extends AppError {
  constructor(message = 'Authentication is required: send Authorization: Bearer <token>.') {
    super('authentication_required', message);
  }
}

export class InsufficientPermissionsError extends AppError {
  constructor(message = 'You are not allowed to perform this action.') {
    super('insufficient_permissions', message);
  }
}

export class ResourceNotFoundError extends AppError {
  constructor(what = 'Resource', id?: string) {
    super('resource_not_found', id ? `${what} ${id} was not found.` : `${what} was not found.`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: FieldProblem[]) {
    super('conflict', message, details);
  }
}

export class PreconditionFailedError extends AppError {
  constructor(message = 'The If-Match header does not match the current ETag.') {
    super('precondition_failed', message);
  }
}

export class RateLimitExceededError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(
      'rate_limit_exceeded',
      `Rate limit exceeded. Try again in ${retryAfterSeconds} seconds.`,
      undefined,
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}
