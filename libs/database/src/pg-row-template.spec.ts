import { Result, types } from 'pg';
import type { FieldDef } from 'pg';
import { pgOwnAddFields, usePlainRowTemplate } from './pg-row-template';

type RowMaker = Result & { addFields(fields: FieldDef[]): void; parseRow(row: Array<string | null>): Record<string, unknown> };

const field = (name: string, dataTypeID: number, format = 'text'): FieldDef => ({
  name,
  dataTypeID,
  format,
  tableID: 0,
  columnID: 0,
  dataTypeSize: -1,
  dataTypeModifier: -1,
});

/** A resource's columns as a read by id describes them, a column named like Object.prototype's members, and a binary one. */
const FIELDS = [
  field('id', 25),
  field('metadata', 3802),
  field('version', 23),
  field('created_at', 1184),
  field('__proto__', 25),
  field('constructor', 25),
  field('payload', 17, 'binary'),
];
const RAW_ROWS: Array<Array<string | null>> = [
  ['res_1', '{"n":1}', '7', '2026-01-01 00:00:00+00', 'shadow', 'ctor', 'bytes'],
  ['res_2', null, null, null, null, null, null],
];

/** The rows and the state a result has after its RowDescription, by one `addFields` or the other. */
function rowsMadeBy(addFields: typeof pgOwnAddFields, customTypes?: typeof types) {
  const result = new Result(undefined as unknown as string, customTypes as typeof types) as RowMaker;
  Reflect.apply(addFields, result, [FIELDS]);
  const state = result as unknown as { fields: FieldDef[]; _parsers: unknown[] };
  const rows = RAW_ROWS.map((raw) => result.parseRow(raw));
  return { fields: state.fields, parsers: state._parsers, rows };
}

describe('the plain row template', () => {
  beforeAll(() => usePlainRowTemplate());
  const plainAddFields = (): typeof pgOwnAddFields => (Result.prototype as unknown as { addFields: typeof pgOwnAddFields }).addFields;

  it("replaces pg's own addFields", () => {
    expect(plainAddFields()).not.toBe(pgOwnAddFields);
  });

  it("gives a result pg's fields, parsers and rows, own keys in column order, with Object.prototype", () => {
    const own = rowsMadeBy(pgOwnAddFields);
    const plain = rowsMadeBy(plainAddFields());
    expect(plain.fields).toBe(FIELDS);
    expect(plain.parsers).toEqual(own.parsers);
    expect(plain.rows).toEqual(own.rows);
    plain.rows.forEach((row, index) => {
      expect(Object.keys(row)).toEqual(Object.keys(own.rows[index]));
      expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(row, '__proto__')).toEqual(Object.getOwnPropertyDescriptor(own.rows[index], '__proto__'));
    });
    expect(plain.rows[0]).toMatchObject({ id: 'res_1', metadata: { n: 1 }, version: 7, constructor: 'ctor' });
    expect(plain.rows[0].created_at).toEqual(new Date('2026-01-01T00:00:00Z'));
  });

  it("chooses the parsers of a client's own types, as pg does", () => {
    const custom = { getTypeParser: (oid: number) => (value: string) => `${oid}:${value}` } as unknown as typeof types;
    const own = rowsMadeBy(pgOwnAddFields, custom);
    const plain = rowsMadeBy(plainAddFields(), custom);
    expect(plain.rows).toEqual(own.rows);
    expect(plain.rows[0].version).toBe('23:7');
  });

  it('keeps rows of one result apart: a row written to leaves the next alone', () => {
    const result = new Result(undefined as unknown as string, undefined as unknown as typeof types) as RowMaker;
    result.addFields([field('id', 25)]);
    const first = result.parseRow(['a']);
    first.extra = true;
    expect(result.parseRow(['b'])).toEqual({ id: 'b' });
  });

  it('makes the rows of results with the same columns apart, and keys each result in its own order', () => {
    const resultOf = (fields: FieldDef[]): RowMaker => {
      const result = new Result(undefined as unknown as string, undefined as unknown as typeof types) as RowMaker;
      result.addFields(fields);
      return result;
    };
    const first = resultOf([field('id', 25), field('n', 23)]).parseRow(['a', '1']);
    first.id = 'changed';
    expect(resultOf([field('id', 25), field('n', 23)]).parseRow(['b', '2'])).toEqual({ id: 'b', n: 2 });
    expect(Object.keys(resultOf([field('n', 23), field('id', 25)]).parseRow(['3', 'c']))).toEqual(['n', 'id']);
    expect(Object.keys(resultOf([field('id', 25)]).parseRow(['d']))).toEqual(['id']);
  });
});

