import { Result, types } from 'pg';
import type { FieldDef } from 'pg';

/** A column's parser: given its text, or for a binary column its bytes, as pg gives them. */
type TypeParser = (value: string | Buffer) => unknown;
type RawRow = ReadonlyArray<string | null>;
/** One statement's row from its raw column values, each through its column's parser. */
type RowMaker = (raw: RawRow, parsers: readonly TypeParser[]) => Record<string, unknown>;

/** What `Result.addFields` sets and `Result.parseRow` reads: pg's own, undocumented (docs/decisions.md), and the maker. */
interface ResultRowState {
  fields: FieldDef[];
  _parsers?: TypeParser[];
  _types?: typeof types;
  makeRow?: RowMaker;
}

/** Column lists compiled: a service's statements are a fixed set; a longer tail gets the generic maker. */
export const ROW_MAKERS_KEPT = 256;
const makersByColumns = new Map<string, RowMaker>();
/** A connection describes a statement with one array for all its executions (row-description-cache.ts). */
const makersByDescription = new WeakMap<FieldDef[], RowMaker>();

/** A property of an object literal: `__proto__` written plainly would set the prototype, computed it is an own property. */
const literalKey = (name: string): string => (name === '__proto__' ? '["__proto__"]' : JSON.stringify(name));

/**
 * A row maker compiled for one list of column names: one object literal, so each statement's rows
 * get their own allocation site and map. pg copies one empty row per statement and writes each
 * column by name; in a process with more than four statements both sites are megamorphic, 1.6k
 * instructions a row (a page of 20 rows spent 34k on it). Names are JSON string literals, so no
 * column name can be code; as in pg, a repeated name keeps its first position and its last value.
 */
function compiledRowMaker(names: readonly string[]): RowMaker {
  const properties = names.map((name, index) => `${literalKey(name)}: raw[${index}] === null ? null : parsers[${index}](raw[${index}])`);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from JSON-quoted names only (above)
  return new Function('raw', 'parsers', `return { ${properties.join(', ')} };`) as RowMaker;
}

/** pg's own way, for binary columns and the tail past ROW_MAKERS_KEPT: the columns written in order. */
function genericRowMaker(fields: readonly FieldDef[]): RowMaker {
  return (raw, parsers) => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < fields.length; index++) {
      const value = raw[index];
      const { name, format } = fields[index];
      const parsed = value === null ? null : parsers[index](format === 'binary' ? Buffer.from(value) : value);
      if (name === '__proto__') Object.defineProperty(row, name, { value: parsed, writable: true, enumerable: true, configurable: true });
      else row[name] = parsed;
    }
    return row;
  };
}

function rowMakerFor(fields: FieldDef[]): RowMaker {
  let maker = makersByDescription.get(fields);
  if (maker) return maker;
  if (fields.some((field) => field.format === 'binary')) {
    maker = genericRowMaker(fields);
  } else {
    const names = fields.map((field) => field.name);
    const key = JSON.stringify(names);
    maker = makersByColumns.get(key);
    if (!maker && makersByColumns.size < ROW_MAKERS_KEPT) makersByColumns.set(key, (maker = compiledRowMaker(names)));
    maker ??= genericRowMaker(fields);
  }
  makersByDescription.set(fields, maker);
  return maker;
}

/** The parsers of a RowDescription's columns, chosen as pg chooses them (the client's own `types`, else pg-types). */
function addFields(this: ResultRowState, fieldDescriptions: FieldDef[]): void {
  const typeParsers = this._types ?? types;
  const parsers = fieldDescriptions.map(
    (field) => typeParsers.getTypeParser(field.dataTypeID, field.format === 'binary' ? 'binary' : 'text') as TypeParser,
  );
  this.fields = fieldDescriptions;
  if (fieldDescriptions.length > 0) this._parsers = parsers;
  this.makeRow = rowMakerFor(fieldDescriptions);
}

function parseRow(this: ResultRowState, raw: RawRow): Record<string, unknown> {
  return (this.makeRow as RowMaker)(raw, this._parsers ?? []);
}

const resultMethods = Result.prototype as unknown as {
  addFields: (this: ResultRowState, fieldDescriptions: FieldDef[]) => void;
  parseRow: (this: ResultRowState, raw: RawRow) => Record<string, unknown>;
};

/** pg's own `addFields` and `parseRow`, kept for the specs that compare the two. */
export const pgOwnAddFields = resultMethods.addFields;
export const pgOwnParseRow = resultMethods.parseRow;

/** Has every pg result of this process make its rows with its statement's row maker; the apps' DatabaseModule calls it. */
export function useCompiledRowMakers(): void {
  resultMethods.addFields = addFields;
  resultMethods.parseRow = parseRow;
}
