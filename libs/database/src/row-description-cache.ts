import type { BackendMessage } from 'pg-protocol/dist/messages';
import { Parser } from 'pg-protocol/dist/parser';

/** The RowDescription message's code ('T'). */
const ROW_DESCRIPTION = 0x54;
/** The bytes of a message's length field, which the length counts. */
const LENGTH_FIELD = 4;
/** Descriptions kept per connection: the statements a service sends are a fixed set; a longer tail is parsed as pg parses it. */
export const DESCRIPTIONS_KEPT = 64;

type HandlePacket = (this: Parser, offset: number, code: number, length: number, bytes: Buffer) => BackendMessage;

interface KeptDescription {
  bytes: Buffer;
  message: BackendMessage;
}

/** The descriptions one connection's parser has parsed; a property of the parser, read once per RowDescription. */
interface DescribingParser {
  keptDescriptions?: KeptDescription[];
}

const parserMethods = Parser.prototype as unknown as { handlePacket: HandlePacket };

/** pg-protocol's own `handlePacket`, kept for the spec that compares the two. */
export const pgOwnHandlePacket = parserMethods.handlePacket;

function keptDescriptionOf(kept: KeptDescription[], bytes: Buffer, start: number, end: number): BackendMessage | undefined {
  const size = end - start;
  for (const description of kept) {
    if (description.bytes.length === size && bytes.compare(description.bytes, 0, size, start, end) === 0) return description.message;
  }
  return undefined;
}

/**
 * pg is told the columns of every statement's result anew (a RowDescription per execution), and
 * pg-protocol decodes their names into new strings each time, which V8 then hashes and looks up
 * in its string table when a row is keyed by them: about 8% of a read by id. Here each
 * connection answers the bytes of a description it has parsed before with the message it made
 * of them then, whose names V8 has already interned. The message is pg's own, unchanged; pg
 * hands its `fields` to each result as `result.fields`, which results of one statement on one
 * connection now share (docs/decisions.md).
 */
function handlePacket(this: Parser & DescribingParser, offset: number, code: number, length: number, bytes: Buffer): BackendMessage {
  if (code !== ROW_DESCRIPTION) return pgOwnHandlePacket.call(this, offset, code, length, bytes);
  const end = offset + length - LENGTH_FIELD;
  const kept = (this.keptDescriptions ??= []);
  const known = keptDescriptionOf(kept, bytes, offset, end);
  if (known) return known;
  const message = pgOwnHandlePacket.call(this, offset, code, length, bytes);
  if (kept.length < DESCRIPTIONS_KEPT) kept.push({ bytes: Buffer.from(bytes.subarray(offset, end)), message });
  return message;
}

/** Has every pg connection of this process keep the RowDescriptions it parses; the apps' DatabaseModule calls it. */
export function useRowDescriptionCache(): void {
  parserMethods.handlePacket = handlePacket;
}
