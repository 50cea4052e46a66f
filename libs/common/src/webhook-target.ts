import { isIP } from 'node:net';
import { IPv4, IPv6, parseCIDR } from 'ipaddr.js';

/**
 * IANA's only global unicast allocation (RFC 4291 §2.4). ipaddr.js calls any address it has no
 * name for 'unicast', including the IPv4-compatible ::a.b.c.d (::/96, RFC 4291 §2.5.5.1), so an
 * IPv6 address outside it is refused too.
 */
const IPV6_GLOBAL_UNICAST = parseCIDR('2000::/3');
/** The well-known NAT64 prefix (RFC 6052 §2.1): DNS64 answers for IPv4-only hosts carry the host's IPv4 address in its last 32 bits. */
const NAT64_WELL_KNOWN_PREFIX = parseCIDR('64:ff9b::/96');

/**
 * The IPv4 address an IPv6 address stands for, when its embedding is fixed: IPv4-mapped
 * (::ffff:a.b.c.d) and the well-known NAT64 prefix, which a DNS64 resolver gives for every
 * IPv4-only receiver. The other forms carrying an IPv4 address (rfc6145, the local-use NAT64
 * prefix 64:ff9b:1::/48 whose layout depends on the operator's prefix length, 6to4, Teredo)
 * are refused outright: no legitimate receiver needs them.
 */
function embeddedIpv4(address: IPv6): IPv4 | null {
  if (address.range() === 'ipv4Mapped') return address.toIPv4Address();
  if (address.match(NAT64_WELL_KNOWN_PREFIX)) return new IPv4(address.toByteArray().slice(12));
  return null;
}

/**
 * An IPv6 address as ipaddr.js should read it: without a zone id, which does not change its
 * range, and with a dotted IPv4 tail spelled in hex, since ipaddr.js reads the IPv4-compatible
 * ::a.b.c.d as the IPv4-mapped ::ffff:a.b.c.d and would then judge a.b.c.d.
 */
function parseIpv6(address: string): IPv6 {
  const hexTail = (tail: string): string => {
    const [a, b, c, d] = tail.split('.').map(Number);
    return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  };
  return IPv6.parse(address.replace(/%.*$/, '').replace(/\d+\.\d+\.\d+\.\d+$/, hexTail));
}

/**
 * True when a webhook must not be delivered to this IP address (docs/api.md#webhook-urls): anything
 * ipaddr.js does not call plain 'unicast' (loopback, private, CGNAT, link-local with the cloud
 * metadata address 169.254.169.254, unique-local, multicast, reserved, benchmarking, ...).
 */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return IPv4.parse(address).range() !== 'unicast';
  if (family !== 6) return true;
  const ipv6 = parseIpv6(address);
  const inner = embeddedIpv4(ipv6);
  if (inner) return inner.range() !== 'unicast';
  return ipv6.range() !== 'unicast' || !ipv6.match(IPV6_GLOBAL_UNICAST);
}

/**
 * `localhost` and names under `.localhost` are loopback by definition (RFC 6761 §6.3), whatever
 * a resolver answers for them, so they are refused without asking one.
 */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * A connection refused by the guard. Its message names no address: it is shown to the
 * webhook's owner, and saying what a name resolved to would make webhooks a tool for reading
 * the service's internal DNS.
 */
export class RefusedTargetError extends Error {
  constructor() {
    super('not an allowed target: the host points to a loopback, private, link-local or reserved address');
    this.name = 'RefusedTargetError';
  }
}

/**
 * True when a url is `http://` to a loopback host (`localhost`, `*.localhost`, 127.0.0.0/8,
 * `[::1]`): a receiver on the developer's own machine, which WEBHOOK_ALLOW_LOOPBACK_HTTP admits.
 * Plain http never leaves the machine, so nothing else is ever sent unencrypted.
 */
export function isLoopbackHttpUrl(url: URL): boolean {
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isLoopbackName(host)) return true;
  const family = isIP(host);
  if (family === 4) return IPv4.parse(host).range() === 'loopback';
  return family === 6 && IPv6.parse(host).range() === 'loopback';
}
