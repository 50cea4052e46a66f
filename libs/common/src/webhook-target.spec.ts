import { findRefusedAddress, guardedLookup, isRefusedAddress, RefusedTargetError } from './webhook-target';

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
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::FFFF:10.0.0.1',
    '64:ff9b::10.0.0.1',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.255.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(isRefusedAddress(address)).toBe(false);
    },
  );
});

describe('guardedLookup', () => {
  it('refuses a name that resolves to loopback at connect time', (done) => {
    guardedLookup('localhost', {}, (error) => {
      expect(error).toBeInstanceOf(RefusedTargetError);
      done();
    });
  });

  it('passes a public literal through in the shape the caller asked for', (done) => {
    guardedLookup('8.8.8.8', { all: true }, (error, addresses) => {
      expect(error).toBeNull();
      expect(addresses).toEqual([{ address: '8.8.8.8', family: 4 }]);
      done();
    });
  });
});

describe('findRefusedAddress', () => {
  it('judges literals, bracketed IPv6 and names', async () => {
    expect(await findRefusedAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(await findRefusedAddress('[::1]')).toBe('::1');
    expect(await findRefusedAddress('8.8.8.8')).toBeNull();
    expect(await findRefusedAddress('localhost')).toEqual(expect.stringMatching(/^(127\.|::1)/));
  });
});
