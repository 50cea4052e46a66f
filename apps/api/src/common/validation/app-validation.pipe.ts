import { ValidationPipe } from '@nestjs/common';
import { ValidationError } from '@app/common';
import { toFieldProblems } from './validation-problems';

/**
 * The global pipe: transforms plain bodies and queries into their DTOs, refuses unknown and
 * read-only fields, and lists every offending field in `details`.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => new ValidationError(toFieldProblems(errors)),
  });
}
