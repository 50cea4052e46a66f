import { Result, types } from 'pg';
import type { FieldDef } from 'pg';
import { pgOwnAddFields, pgOwnParseRow, ROW_MAKERS_KEPT, useCompiledRowMakers } from './pg-row-maker';

type RawRow = Array<string | null>;
type ResultMethods = { addFields: typeof pgOwnAddFields; parseRow: typeof pgOwnParseRow };
type MakingResult = Result & { addFields(fields: FieldDef[]): void; parseRow(row: RawRow): Record<string, unknown> };

const field = (name: string, dataTypeID: number, format = 'text'): FieldDef => ({
  name,
  dataTypeID,
  format,
  tableID: 0,
  columnID: 0,
  dataTypeSize: -1,
  dataTypeModifier: -1,
});

/** A resource's columns as a read by id describes them, and columns named like Object.prototype's members. */
const FIELDS = [field('id', 25), field('metadata', 3802), field('version', 23), field('created_at', 1184), field('__proto__', 25), field('constructor', 25)];
const RAW_ROWS: RawRow[] = [
  ['res_1', '{"n":1}', '7', '2026-01-01 00:00:00+00', 'shadow', 'ctor'],
  ['res_2', null, null, null, null, null],
];

const methods = Result.prototype as unknown as ResultMethods;

/** The rows and the state a result has after its RowDescription, by pg's own methods or the installed ones. */
function rowsMadeBy(own: boolean, fields: FieldDef[], rawRows: RawRow[], customTypes?: typeof types) {
  const result = new Result(undefined as unknown as string, customTypes as typeof types) as MakingResult;
  Reflect.apply(own ? pgOwnAddFields : methods.addFields, result, [fields]);
  const state = result as unknown as { fields: FieldDef[]; _parsers: unknown[] };
  const rows = rawRows.map((raw) => Reflect.apply(own ? pgOwnParseRow : methods.parseRow, result, [raw]) as Record<string, unknown>);
  return { fields: state.fields, parsers: state._parsers, rows };
}

/** The installed methods make what pg's own make: the same values, own keys in the same order, Object.prototype, `__proto__` an own column. */
function expectPgRows(fields: FieldDef[], rawRows: RawRow[], customTypes?: typeof types): Array<Record<string, unknown>> {
  const own = rowsMadeBy(true, fields, rawRows, customTypes);
  const made = rowsMadeBy(false, fields, rawRows, customTypes);
  expect(made.fields).toBe(fields);
  // A client's own types may make a new parser at each ask: those are compared by the rows they make.
  if (!customTypes) expect(made.parsers).toEqual(own.parsers);
  expect(made.rows).toEqual(own.rows);
  made.rows.forEach((row, index) => {
    expect(Object.keys(row)).toEqual(Object.keys(own.rows[index]));
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')).toEqual(Object.getOwnPropertyDescriptor(own.rows[index], '__proto__'));
  });
  return made.rows;
}

describe('the compiled row makers', () => {
  beforeAll(() => useCompiledRowMakers());

  it("replace pg's own addFields and parseRow", () => {
    expect(methods.addFields).not.toBe(pgOwnAddFields);
    expect(methods.parseRow).not.toBe(pgOwnParseRow);
  });

  it("make pg's rows, with pg's fields and parsers", () => {
    const [first] = expectPgRows(FIELDS, RAW_ROWS);
    expect(first).toMatchObject({ id: 'res_1', metadata: { n: 1 }, version: 7, constructor: 'ctor' });
    expect(first.created_at).toEqual(new Date('2026-01-01T00:00:00Z'));
  });

  it("choose the parsers of a client's own types, as pg does", () => {
    const custom = { getTypeParser: (oid: number) => (value: string) => `${oid}:${value}` } as unknown as typeof types;
    expect(expectPgRows(FIELDS, RAW_ROWS, custom)[0].version).toBe('23:7');
  });

  it("make a binary column as pg does, its bytes through pg's binary parser", () => {
    const seen: unknown[] = [];
    const custom = { getTypeParser: () => (value: unknown) => seen.push(value) && value } as unknown as typeof types;
    expectPgRows([field('id', 25), field('payload', 17, 'binary')], [['res_1', 'bytes']], custom);
    expect(seen.filter((value) => Buffer.isBuffer(value))).toEqual([Buffer.from('bytes'), Buffer.from('bytes')]);
    expect(expectPgRows([field('payload', 17, 'binary')], [['bytes']])).toEqual([{ payload: 'bytes' }]);
  });

  it('keep a repeated column name at its first position with its last value, as pg does', () => {
    expect(expectPgRows([field('n', 23), field('id', 25), field('n', 23)], [['1', 'a', '2']])).toEqual([{ n: 2, id: 'a' }]);
  });

  it('take a column name that reads as code as a name', () => {
    const name = '"]: (globalThis.hijacked = 1), x: ["';
    expect(expectPgRows([field(name, 25), field('a\nb\\c', 25)], [['v', 'w']])).toEqual([{ [name]: 'v', 'a\nb\\c': 'w' }]);
    expect((globalThis as { hijacked?: number }).hijacked).toBeUndefined();
  });

  it('keep rows of one result apart: a row written to leaves the next alone', () => {
    const result = new Result(undefined as unknown as string, undefined as unknown as typeof types) as MakingResult;
    result.addFields([field('id', 25)]);
    const first = result.parseRow(['a']);
    first.extra = true;
    expect(result.parseRow(['b'])).toEqual({ id: 'b' });
  });

  it('key each result in its own column order, results with the same columns alike', () => {
    const resultOf = (fields: FieldDef[]): MakingResult => {
      const result = new Result(undefined as unknown as string, undefined as unknown as typeof types) as MakingResult;
      result.addFields(fields);
      return result;
    };
    expect(resultOf([field('id', 25), field('n', 23)]).parseRow(['b', '2'])).toEqual({ id: 'b', n: 2 });
    expect(Object.keys(resultOf([field('n', 23), field('id', 25)]).parseRow(['3', 'c']))).toEqual(['n', 'id']);
    expect(Object.keys(resultOf([field('id', 25)]).parseRow(['d']))).toEqual(['id']);
  });

  it(`make pg's rows past the ${ROW_MAKERS_KEPT} column lists it compiles`, () => {
    for (let index = 0; index <= ROW_MAKERS_KEPT; index++) rowsMadeBy(false, [field(`column_${index}`, 23)], [['1']]);
    expect(expectPgRows([field('past_the_kept', 23), field('__proto__', 25)], [['5', 'p']])).toEqual([
      Object.defineProperty({ past_the_kept: 5 }, '__proto__', { value: 'p', writable: true, enumerable: true, configurable: true }),
    ]);
  });
});
