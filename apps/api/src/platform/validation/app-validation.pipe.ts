import { ArgumentMetadata, Paramtype, PipeTransform, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { ValidationError } from '@app/common';
import { DtoRuleCheck } from './dto-rule-check';
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

/** How every DTO is validated; `DtoRuleCheck` answers as ValidationPipe does with exactly these options. */
export const DTO_VALIDATION_OPTIONS = {
  transform: true,
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: true },
} as const satisfies ValidationPipeOptions;

function validationWith(wording: ValidationErrorWording): ValidationPipe {
  return new ValidationPipe({
    ...DTO_VALIDATION_OPTIONS,
    exceptionFactory: (errors) => new ValidationError(toFieldProblems(errors, wording.undeclaredField), wording.message),
  });
}

/**
 * The validation pipe: transforms plain bodies and queries into their DTOs, refuses unknown and
 * read-only fields, and lists every offending field in `details`. A value with nothing to check
 * (a string where a string is declared, or a parameter `isValidatedParameter` leaves out) is
 * answered synchronously, as ValidationPipe would answer it. So is a valid value of a DTO whose
 * rules `DtoRuleCheck` reads; ValidationPipe answers the rest, every refusal among them.
 */
export class AppValidationPipe implements PipeTransform {
  private readonly bodyValidation = validationWith(BODY_WORDING);
  /** The ValidationPipe of each DTO that words its refusals itself. */
  private readonly wordedValidations = new WeakMap<object, ValidationPipe>();

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const dto = metadata.metatype;
    if (!isValidatedParameter(metadata.type, dto) || (dto === String && typeof value === 'string')) {
      return value;
    }
    const accepted = dto === undefined ? undefined : DtoRuleCheck.of(dto)?.accept(value);
    return accepted ?? this.validationFor(dto).transform(value, metadata);
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
