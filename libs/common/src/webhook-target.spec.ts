import { isLoopbackHttpUrl, isLoopbackName, isRefusedAddress } from './webhook-target';

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
