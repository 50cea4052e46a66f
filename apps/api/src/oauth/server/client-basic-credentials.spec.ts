import { basicAuthorization, readBasicClientCredentials } from './client-basic-credentials';

const header = (pair: string): string => `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;

/** RFC 6749 2.3.1: id and secret are form-encoded, then joined by Basic. */
describe('readBasicClientCredentials', () => {
  it.each([
    ['form-encoded, as openid-client and oauth4webapi send them', 'cli%5F01JD%2Dx:ocs%5Fa%2Db', 'cli_01JD-x', 'ocs_a-b'],
    ['unencoded, as curl sends them', 'cli_01JD-x:ocs_a-b', 'cli_01JD-x', 'ocs_a-b'],
    ['with + for a space and an escaped colon and percent', 'a+b:c%3Ad%25e+', 'a b', 'c:d%e '],
    ['with a colon in the secret', 'cli_x:se:cret', 'cli_x', 'se:cret'],
  ])('decodes an id and secret %s', (_case, pair, clientId, clientSecret) => {
    expect(readBasicClientCredentials(header(pair))).toEqual({ outcome: 'present', clientId, clientSecret });
  });

  it.each(['cli_x:%zz', 'cli%x:secret', 'cli_x:%E0%A4%A'])('finds %s malformed', (pair) => {
    expect(readBasicClientCredentials(header(pair))).toEqual({ outcome: 'malformed' });
  });

  it.each([undefined, '', 'Bearer x', 'Basic', `Basic ${Buffer.from('no-colon').toString('base64')}`])('finds no Basic credentials in %p', (authorization) => {
    expect(readBasicClientCredentials(authorization)).toEqual({ outcome: 'absent' });
  });

  it('writes a header that reads back as the same decoded pair', () => {
    expect(readBasicClientCredentials(basicAuthorization('cli_x', 'ocs_a-b'))).toEqual({ outcome: 'present', clientId: 'cli_x', clientSecret: 'ocs_a-b' });
  });
});
