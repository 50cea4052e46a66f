import { lookup as dnsLookup, LookupAddress, LookupAllOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may not reach (decisions 11): loopback, private, CGNAT, link-local
 * (which holds the cloud metadata address 169.254.169.254), unspecified, multicast,
 * reserved and benchmarking ranges, and their IPv6 counterparts. IPv4-mapped and NAT64
 * IPv6 addresses are judged by the IPv4 address inside them.
 */
const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) address. */
function embeddedIpv4(address: string): string | null {
  const match = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return null;
  if (match[1]) return match[1];
  const high = parseInt(match[2], 16);
  const low = parseInt(match[3], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True when a webhook must not be delivered to this IP address. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return REFUSED.check(address, 'ipv4');
  if (family !== 6) return true;
  const inner = embeddedIpv4(address.toLowerCase());
  if (inner) return REFUSED.check(inner, 'ipv4');
  return REFUSED.check(address, 'ipv6');
}

export class RefusedTargetError extends Error {
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(`${hostname} resolves to ${address}, a loopback, private, link-local or reserved address`);
    this.name = 'RefusedTargetError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for an HTTPS agent that refuses the connection when the name resolves to a
 * refused address. It checks the addresses the socket will actually connect to, so a name
 * that resolved to a public address at create time and to a private one now (DNS
 * rebinding) is still refused.
 */
export function guardedLookup(hostname: string, options: LookupAllOptions | object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((entry) => isRefusedAddress(entry.address));
    if (refused) return callback(new RefusedTargetError(hostname, refused.address), []);
    if ((options as LookupAllOptions).all) return callback(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
}

/** The first refused address the host resolves to, or null when all are public; rejects when it does not resolve. */
export async function findRefusedAddress(hostname: string): Promise<string | null> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return isRefusedAddress(host) ? host : null;
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
  );
  return addresses.find((entry) => isRefusedAddress(entry.address))?.address ?? null;
}
