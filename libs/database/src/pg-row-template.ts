import { Result, types } from 'pg';
import type { FieldDef } from 'pg';

type TypeParser = (value: string) => unknown;

/** What `Result.addFields` sets besides `fields`: pg's own, undocumented (docs/decisions.md). */
interface ResultRowState {
  fields: FieldDef[];
  _parsers?: TypeParser[];
  _types?: typeof types;
  _prebuiltEmptyResultObject: Record<string, null> | null;
}

/**
 * pg makes each row of a result by copying the result's empty row, which it builds from every
 * RowDescription as a null-prototype object and then spreads. V8 keeps a null-prototype object
 * as a dictionary, and spreading one costs about 2.5 µs for a dozen columns: on every statement,
 * about 2% of a read by id. Here the same empty row is built as an ordinary object, a column
 * named `__proto__` defined as an own property, as the spread defines it; the parsers are
 * chosen as pg chooses them.
 */
function addFields(this: ResultRowState, fieldDescriptions: FieldDef[]): void {
  const parsers: TypeParser[] = new Array<TypeParser>(fieldDescriptions.length);
  const typeParsers = this._types ?? types;
  const emptyRow: Record<string, null> = {};
  for (let i = 0; i < fieldDescriptions.length; i++) {
    const field = fieldDescriptions[i];
    if (field.name === '__proto__') {
      Object.defineProperty(emptyRow, field.name, { value: null, writable: true, enumerable: true, configurable: true });
    } else {
      emptyRow[field.name] = null;
    }
    parsers[i] = typeParsers.getTypeParser(field.dataTypeID, field.format === 'binary' ? 'binary' : 'text') as TypeParser;
  }
  this.fields = fieldDescriptions;
  if (fieldDescriptions.length > 0) this._parsers = parsers;
  this._prebuiltEmptyResultObject = emptyRow;
}

const resultMethods = Result.prototype as unknown as { addFields: (this: ResultRowState, fieldDescriptions: FieldDef[]) => void };

/** pg's own `addFields`, kept for the canary that compares the two. */
export const pgOwnAddFields = resultMethods.addFields;

/** Has every pg result of this process build its empty row as an ordinary object; the apps' DatabaseModule calls it. */
export function usePlainRowTemplate(): void {
  resultMethods.addFields = addFields;
}
