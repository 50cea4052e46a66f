import { ArgumentMetadata, PipeTransform, ValidationPipe } from '@nestjs/common';
import { ValidationError } from '@app/common';
import { toFieldProblems } from './validation-problems';

/** Metatypes ValidationPipe neither validates nor converts: the value comes back as it went in. */
const PASSED_AS_IS = new Set<unknown>([undefined, null, Object, Array, Buffer, Date]);

/**
 * The global pipe: transforms plain bodies and queries into their DTOs, refuses unknown and
 * read-only fields, and lists every offending field in `details`.
 *
 * Most parameters have no DTO (custom decorators, ids, raw queries, headers): they are answered
 * here, synchronously, with the value ValidationPipe would return, without the promise its
 * `transform` makes for every parameter of every request.
 */
export class AppValidationPipe implements PipeTransform {
  private readonly validation = new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => new ValidationError(toFieldProblems(errors)),
  });

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (passesAsIs(value, metadata)) return value;
    return this.validation.transform(value, metadata);
  }
}

function passesAsIs(value: unknown, { type, metatype }: ArgumentMetadata): boolean {
  return type === 'custom' || PASSED_AS_IS.has(metatype) || (metatype === String && typeof value === 'string');
}
