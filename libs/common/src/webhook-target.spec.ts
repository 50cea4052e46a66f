import dns, { LookupAddress } from 'node:dns';
import { guardedLookup, isLoopbackHttpUrl, isLoopbackName, isRefusedAddress, RefusedTargetError } from './webhook-target';

/** IPv6 forms that carry a loopback or private IPv4 address, or embed one in a way not judged. */
const IPV6_CARRYING_IPV4 = [
  ['IPv4-compatible (::/96)', '::127.0.0.1'],
  ['IPv4-compatible, hex', '::7f00:1'],
  ['IPv4-compatible, public inside', '::8.8.8.8'],
  ['IPv4-translated (rfc6145)', '::ffff:0:127.0.0.1'],
  ['IPv4-translated, public inside', '::ffff:0:8.8.8.8'],
  ['local-use NAT64 (RFC 8215)', '64:ff9b:1::7f00:1'],
  ['local-use NAT64, public inside', '64:ff9b:1::808:808'],
  ['6to4 (RFC 3056)', '2002:7f00:1::1'],
  ['6to4, public inside', '2002:808:808::1'],
  ['Teredo (RFC 4380)', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
];

describe('isRefusedAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    '169.254.169.254',
    '169.254.0.1',
    '0.0.0.0',
    '192.0.2.1',
    '198.18.0.1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    'fec0::1',
    'ff02::1',
    '100::1',
    '2001:db8::1',
    '3fff::1',
    '5f00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::FFFF:10.0.0.1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each(IPV6_CARRYING_IPV4)('refuses the IPv6 form %s: %s', (_form, address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '169.255.0.1',
    '2606:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('allows %s', (address) => {
    expect(isRefusedAddress(address)).toBe(false);
  });
});

describe('isLoopbackName', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'a.b.localhost.'])('calls %s loopback', (name) => {
    expect(isLoopbackName(name)).toBe(true);
  });

  it.each(['localhost.example.com', 'mylocalhost', 'example.com'])('does not call %s loopback', (name) => {
    expect(isLoopbackName(name)).toBe(false);
  });
});

describe('guardedLookup', () => {
  const lookup = (hostname: string, options: object = {}) =>
    new Promise<{ error: Error | null; addresses: string | LookupAddress[] }>((resolve) =>
      guardedLookup(hostname, options, (error, addresses) => resolve({ error, addresses })),
    );

  it.each(['localhost', 'sub.localhost', '127.0.0.1', '::1'])(
    'refuses %s at connect time with a message that names no address',
    async (hostname) => {
      const { error } = await lookup(hostname);
      expect(error).toBeInstanceOf(RefusedTargetError);
      expect(error?.message).toMatch(/^not an allowed target/);
      expect(error?.message).not.toMatch(/127\.|::1|localhost/);
    },
  );

  it.each(IPV6_CARRYING_IPV4)('refuses the IPv6 form %s (%s) at connect time', async (_form, address) => {
    expect((await lookup(address)).error).toBeInstanceOf(RefusedTargetError);
  });

  it('passes a public literal through in the shape the caller asked for', async () => {
    expect(await lookup('8.8.8.8', { all: true })).toEqual({ error: null, addresses: [{ address: '8.8.8.8', family: 4 }] });
  });

  it('calls back asynchronously, as dns.lookup does, even when it refuses without a lookup', () => {
    const callback = jest.fn();
    guardedLookup('localhost', {}, callback);
    expect(callback).not.toHaveBeenCalled();
  });
});

describe('guardedLookup of a name, judged by what it resolves to at connect time', () => {
  afterEach(() => jest.restoreAllMocks());

  const resolvesTo = (addresses: LookupAddress[]) =>
    jest
      .spyOn(dns, 'lookup')
      .mockImplementation(((_hostname: string, _options: object, callback: (error: null, found: LookupAddress[]) => void) =>
        callback(null, addresses)) as unknown as typeof dns.lookup);
  const lookup = (hostname: string, options: object) =>
    new Promise<{ error: Error | null; address: string | LookupAddress[]; family?: number }>((resolve) =>
      guardedLookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
    );

  it('refuses the name when any of its addresses is refused (DNS rebinding), naming none', async () => {
    resolvesTo([
      { address: '93.184.216.34', family: 4 },
      { address: '::ffff:0:a00:7', family: 6 },
    ]);
    const { error } = await lookup('rebound.example.com', {});
    expect(error).toBeInstanceOf(RefusedTargetError);
    expect(error?.message).not.toMatch(/93\.184|a00|10\.0\.0\.7/);
  });

  it('passes public addresses through: the first one, or all when asked', async () => {
    const addresses = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ];
    resolvesTo(addresses);
    expect(await lookup('public.example.com', {})).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookup('public.example.com', { all: true })).toEqual({ error: null, address: addresses, family: undefined });
  });
});

describe('isLoopbackHttpUrl', () => {
  it.each(['http://localhost:4000/hooks', 'http://LOCALHOST./hooks', 'http://app.localhost/hooks', 'http://127.0.0.1:4000/hooks', 'http://127.8.9.10/', 'http://[::1]:4000/hooks'])(
    'takes %s',
    (url) => expect(isLoopbackHttpUrl(new URL(url))).toBe(true),
  );

  it.each([
    'https://localhost/hooks',
    'https://127.0.0.1/hooks',
    'http://example.com/hooks',
    'http://10.0.0.5/hooks',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0:4000/',
    'http://[::ffff:127.0.0.1]/',
    'http://localhost.example.com/',
    'ftp://127.0.0.1/',
  ])('refuses %s', (url) => expect(isLoopbackHttpUrl(new URL(url))).toBe(false));
});
