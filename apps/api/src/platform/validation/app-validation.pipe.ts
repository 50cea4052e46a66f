import { ArgumentMetadata, Paramtype, PipeTransform, ValidationPipe } from '@nestjs/common';
import { ValidationError } from '@app/common';
import { toFieldProblems, undeclaredBodyField } from './validation-problems';

/** Metatypes ValidationPipe neither validates nor converts: the value comes back as it went in. */
const PASSED_AS_IS = new Set<unknown>([undefined, null, Object, Array, Buffer, Date]);

/**
 * Whether ValidationPipe could change or refuse a handler parameter of this kind: DTO bodies and
 * queries, and typed query values. Custom decorators are not validated, untyped values pass as
 * they are, and a route parameter (`:id`) is always a string.
 */
function isValidatedParameter(type: Paramtype, metatype: unknown): boolean {
  if (type === 'custom' || PASSED_AS_IS.has(metatype)) return false;
  return !(type === 'param' && metatype === String);
}

/** An object with no own enumerable key: a request without query parameters, or a body `{}`. */
function isEmptyObject(value: unknown): value is Record<string, never> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) return false;
  return true;
}

/** How a DTO's validation error reads: the error's message, and the problem of a field it does not declare. */
export interface ValidationErrorWording {
  message: string;
  undeclaredField: (name: string) => string;
}

/** The wording of a request body's DTO, which every DTO has unless it declares its own. */
const BODY_WORDING: ValidationErrorWording = { message: 'The request has invalid fields.', undeclaredField: undeclaredBodyField };

const VALIDATION_ERROR_WORDING = Symbol('validation error wording');

/** Gives a DTO's validation errors their own wording, other than a body's fields' (a query's parameters, say). */
export function WithValidationErrorWording(wording: ValidationErrorWording): ClassDecorator {
  return (dto) => Reflect.defineMetadata(VALIDATION_ERROR_WORDING, wording, dto);
}

function validationWith(wording: ValidationErrorWording): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => new ValidationError(toFieldProblems(errors, wording.undeclaredField), wording.message),
  });
}

/**
 * The validation pipe: transforms plain bodies and queries into their DTOs, refuses unknown and
 * read-only fields, and lists every offending field in `details`. A value with nothing to check
 * (a string where a string is declared, or a parameter `isValidatedParameter` leaves out) is
 * answered synchronously, as ValidationPipe would answer it. So is an empty query or body of a
 * DTO that the pipe has once accepted empty (every field optional): ValidationPipe would only
 * instantiate it again, at the price of a pass through class-validator's and class-transformer's
 * metadata on most reads.
 */
export class AppValidationPipe implements PipeTransform {
  private readonly bodyValidation = validationWith(BODY_WORDING);
  /** The ValidationPipe of each DTO that words its refusals itself. */
  private readonly wordedValidations = new WeakMap<object, ValidationPipe>();
  /** Per DTO, whether ValidationPipe accepted it empty; absent until an empty one came. */
  private readonly acceptsEmpty = new WeakMap<object, boolean>();

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const dto = metadata.metatype;
    if (!isValidatedParameter(metadata.type, dto) || (dto === String && typeof value === 'string')) {
      return value;
    }
    const validation = this.validationFor(dto);
    if (dto === undefined || !isEmptyObject(value)) return validation.transform(value, metadata);
    const acceptsEmpty = this.acceptsEmpty.get(dto);
    // What class-transformer makes of `{}` for a DTO without @Expose: a new instance, nothing copied.
    if (acceptsEmpty === true) return new dto();
    const validated = validation.transform(value, metadata);
    if (acceptsEmpty === undefined) {
      validated.then(
        () => this.acceptsEmpty.set(dto, true),
        () => this.acceptsEmpty.set(dto, false),
      );
    }
    return validated;
  }

  private validationFor(dto: ArgumentMetadata['metatype']): ValidationPipe {
    if (dto === undefined) return this.bodyValidation;
    let validation = this.wordedValidations.get(dto);
    if (validation === undefined) {
      const wording = Reflect.getMetadata(VALIDATION_ERROR_WORDING, dto) as ValidationErrorWording | undefined;
      validation = wording === undefined ? this.bodyValidation : validationWith(wording);
      this.wordedValidations.set(dto, validation);
    }
    return validation;
  }
}
