import { ArgumentMetadata, Paramtype, PipeTransform, ValidationPipe } from '@nestjs/common';
import { ValidationError } from '@app/common';
import { toFieldProblems } from './validation-problems';

/** Metatypes ValidationPipe neither validates nor converts: the value comes back as it went in. */
const PASSED_AS_IS = new Set<unknown>([undefined, null, Object, Array, Buffer, Date]);

/**
 * Whether ValidationPipe could change or refuse a handler parameter of this kind: DTO bodies and
 * queries, and typed query values. Custom decorators are not validated, untyped values pass as
 * they are, and a route parameter (`:id`) is always a string.
 */
export function isValidatedParameter(type: Paramtype, metatype: unknown): boolean {
  if (type === 'custom' || PASSED_AS_IS.has(metatype)) return false;
  return !(type === 'param' && metatype === String);
}

/**
 * The validation pipe: transforms plain bodies and queries into their DTOs, refuses unknown and
 * read-only fields, and lists every offending field in `details`. A value with nothing to check
 * (a string where a string is declared, or a parameter `isValidatedParameter` leaves out, should
 * a module bind the pipe there) is answered synchronously, as ValidationPipe would answer it.
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
    if (!isValidatedParameter(metadata.type, metadata.metatype) || (metadata.metatype === String && typeof value === 'string')) {
      return value;
    }
    return this.validation.transform(value, metadata);
  }
}
