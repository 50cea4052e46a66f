import { createSocket, RemoteInfo } from 'node:dgram';
import { once } from 'node:events';
import { isIP } from 'node:net';
import { IPv4, IPv6 } from 'ipaddr.js';

const TYPE_A = 1;
const TYPE_AAAA = 28;
const CLASS_IN = 1;
const RCODE_NXDOMAIN = 3;

export interface DnsQuestion {
  name: string;
  type: 'A' | 'AAAA' | number;
  /** `performance.now()` when it arrived. */
  receivedAt: number;
}

export interface FakeDnsServer {
  /** `127.0.0.1:<port>`, as WEBHOOK_DNS_SERVERS takes it. */
  address: string;
  /** Every question received, answered or not, in order. */
  questions: DnsQuestion[];
  close(): Promise<void>;
}

export interface FakeDnsZone {
  /** Names (lower case, no trailing dot) and their addresses, IPv4 and IPv6 mixed. */
  records: Record<string, string[]>;
  /** Names under these suffixes are read and never answered, like a DNS server that hangs. */
  silentSuffixes?: string[];
}

/** The question of a DNS query: its name, type and where the question section ends. */
function readQuestion(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let offset = 12;
  while (query[offset] !== 0) {
    const length = query[offset];
    labels.push(query.subarray(offset + 1, offset + 1 + length).toString('latin1'));
    offset += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(offset + 1), end: offset + 5 };
}

/** An answer to the query: the records of the asked type, NXDOMAIN for an unknown name. */
function answer(query: Buffer, zone: FakeDnsZone): Buffer {
  const { name, type, end } = readQuestion(query);
  const known = zone.records[name];
  const family = type === TYPE_A ? 4 : type === TYPE_AAAA ? 6 : 0;
  const addresses = (known ?? []).filter((address) => isIP(address) === family);
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  const recursionDesired = query[2] & 0x01;
  header[2] = 0x84 | recursionDesired; // QR, AA
  header[3] = 0x80 | (known ? 0 : RCODE_NXDOMAIN); // RA
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const data = Buffer.from(family === 4 ? IPv4.parse(address).toByteArray() : IPv6.parse(address).toByteArray());
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(CLASS_IN, 4);
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, end), ...records]);
}

/**
 * A DNS server on 127.0.0.1 over UDP that answers A and AAAA questions from a fixed zone, and
 * leaves names under its silent suffixes unanswered.
 */
export async function startFakeDnsServer(zone: FakeDnsZone): Promise<FakeDnsServer> {
  const socket = createSocket('udp4');
  const questions: DnsQuestion[] = [];
  socket.on('message', (query: Buffer, peer: RemoteInfo) => {
    const { name, type } = readQuestion(query);
    questions.push({ name, type: type === TYPE_A ? 'A' : type === TYPE_AAAA ? 'AAAA' : type, receivedAt: performance.now() });
    if (zone.silentSuffixes?.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) return;
    socket.send(answer(query, zone), peer.port, peer.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return {
    address: `127.0.0.1:${socket.address().port}`,
    questions,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
