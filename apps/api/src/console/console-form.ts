import type { Type } from '@nestjs/common';
import { FieldProblem, ValidationError } from '@app/common';
import { OffsetPageQuery } from '../platform/pagination/offset-page.query';
import { AppValidationPipe } from '../platform/validation/app-validation.pipe';

/** An HTML form as the body parser gives it: a field sent once is a string, sent several times an array. */
export type FormFields = Record<string, unknown>;

/** One field's value; the first when sent several times. */
export function textOf(form: FormFields, name: string): string | undefined {
  const value = form[name];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Every value of a field (checkboxes), none when absent. */
export function listOf(form: FormFields, name: string): string[] {
  const value = form[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** A text field that may be left empty: empty is not sent. */
export function optionalTextOf(form: FormFields, name: string): string | undefined {
  const value = textOf(form, name)?.trim();
  return value ? value : undefined;
}

export type Checked<T> = { valid: true; value: T } | { valid: false; problems: FieldProblem[] };

const validation = new AppValidationPipe();

/**
 * Checks a form's values with the API's own DTO for the same operation, so that the console and
 * the API refuse the same input in the same words; the page shows the problems by field.
 */
export async function checkAs<T>(dto: Type<T>, values: Record<string, unknown>, type: 'body' | 'query' = 'body'): Promise<Checked<T>> {
  const sent = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
  try {
    return { valid: true, value: (await validation.transform(sent, { type, metatype: dto })) as T };
  } catch (error) {
    if (error instanceof ValidationError) return { valid: false, problems: error.details ?? [] };
    throw error;
  }
}

/** Checks values with the API's DTO, or throws its 400, rendered as an error page: for values no form field shows. */
export async function validAs<T>(dto: Type<T>, values: Record<string, unknown>, type: 'body' | 'query' = 'body'): Promise<T> {
  const checked = await checkAs(dto, values, type);
  if (!checked.valid) throw new ValidationError(checked.problems);
  return checked.value;
}

/** The `page` and `per_page` of a list page's address, checked as the API checks them. */
export function pageOf(query: Record<string, unknown>): Promise<OffsetPageQuery> {
  return validAs(OffsetPageQuery, { page: query.page, per_page: query.per_page }, 'query');
}
