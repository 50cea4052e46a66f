import type { BackendMessage } from 'pg-protocol/dist/messages';
import { Parser } from 'pg-protocol/dist/parser';
import { DESCRIPTIONS_KEPT, pgOwnHandlePacket, useRowDescriptionCache } from './row-description-cache';

interface Column {
  name: string;
  dataTypeID: number;
}

/** A RowDescription message on the wire ('T', its length, then each column). */
function rowDescription(columns: Column[]): Buffer {
  const body = Buffer.concat([
    Buffer.from([columns.length >> 8, columns.length & 0xff]),
    ...columns.map((column) => {
      const fixed = Buffer.alloc(18);
      fixed.writeUInt32BE(16_384, 0);
      fixed.writeInt16BE(1, 4);
      fixed.writeUInt32BE(column.dataTypeID, 6);
      fixed.writeInt16BE(-1, 10);
      fixed.writeInt32BE(-1, 12);
      fixed.writeInt16BE(0, 16);
      return Buffer.concat([Buffer.from(`${column.name}\0`, 'utf8'), fixed]);
    }),
  ]);
  const header = Buffer.alloc(5);
  header.write('T', 0, 'latin1');
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** A message pg-protocol needs no description for ('Z', ready for query). */
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

function parsedBy(parser: Parser, bytes: Buffer): BackendMessage[] {
  const messages: BackendMessage[] = [];
  parser.parse(bytes, (message) => messages.push(message));
  return messages;
}

const RESOURCE: Column[] = [
  { name: 'id', dataTypeID: 25 },
  { name: 'metadata', dataTypeID: 3802 },
  { name: 'créé', dataTypeID: 1184 },
];

describe('the row description cache', () => {
  beforeAll(() => useRowDescriptionCache());

  it("replaces pg-protocol's own handlePacket", () => {
    expect((Parser.prototype as unknown as { handlePacket: unknown }).handlePacket).not.toBe(pgOwnHandlePacket);
  });

  it("answers the same description on one connection with the message it made first, equal to pg-protocol's", () => {
    const parser = new Parser();
    const [first] = parsedBy(parser, rowDescription(RESOURCE));
    const [, again] = parsedBy(parser, Buffer.concat([READY_FOR_QUERY, rowDescription(RESOURCE)]));
    expect(again).toBe(first);

    const own = new Parser() as unknown as { handlePacket: typeof pgOwnHandlePacket };
    const bytes = rowDescription(RESOURCE);
    expect(first).toEqual(pgOwnHandlePacket.call(own as unknown as Parser, 5, bytes[0], bytes.length - 1, bytes));
    expect(first).toMatchObject({ name: 'rowDescription', fieldCount: 3, fields: RESOURCE.map((column) => expect.objectContaining(column)) });
  });

  it('tells apart descriptions of one length that differ in a column, and messages around them', () => {
    const parser = new Parser();
    const renamed = RESOURCE.map((column, index) => (index === 0 ? { ...column, name: 'ix' } : column));
    const retyped = RESOURCE.map((column, index) => (index === 0 ? { ...column, dataTypeID: 23 } : column));
    const messages = parsedBy(parser, Buffer.concat([rowDescription(RESOURCE), READY_FOR_QUERY, rowDescription(renamed), rowDescription(retyped), rowDescription(RESOURCE)]));
    expect(messages.map((message) => message.name)).toEqual(['rowDescription', 'readyForQuery', 'rowDescription', 'rowDescription', 'rowDescription']);
    const [resource, , renamedMessage, retypedMessage, resourceAgain] = messages as Array<BackendMessage & { fields?: Column[] }>;
    expect(renamedMessage.fields?.[0]).toMatchObject({ name: 'ix', dataTypeID: 25 });
    expect(retypedMessage.fields?.[0]).toMatchObject({ name: 'id', dataTypeID: 23 });
    expect(resourceAgain).toBe(resource);
  });

  it('keeps each connection to its own, and a bounded number, parsing the rest as pg-protocol does', () => {
    const parser = new Parser();
    const described = (index: number): Buffer => rowDescription([{ name: `c${index}`, dataTypeID: 25 }]);
    const firsts = Array.from({ length: DESCRIPTIONS_KEPT + 1 }, (_, index) => parsedBy(parser, described(index))[0]);
    expect(parsedBy(parser, described(0))[0]).toBe(firsts[0]);
    const beyond = parsedBy(parser, described(DESCRIPTIONS_KEPT))[0];
    expect(beyond).not.toBe(firsts[DESCRIPTIONS_KEPT]);
    expect(beyond).toEqual(firsts[DESCRIPTIONS_KEPT]);
    expect(parsedBy(new Parser(), described(0))[0]).not.toBe(firsts[0]);
  });

});
