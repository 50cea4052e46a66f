import { apiKeyEnvironment, apiKeyPrefix, newApiKeySecret } from './api-key-secret';

describe('API key secrets (docs/api.md#api-keys)', () => {
  it('look like sk_<environment>_ and 43 base62 characters', () => {
    expect(newApiKeySecret('test')).toMatch(/^sk_test_[0-9A-Za-z]{43}$/);
    expect(newApiKeySecret('live')).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
  });

  it('differ every time', () => {
    const secrets = new Set(Array.from({ length: 200 }, () => newApiKeySecret('test')));
    expect(secrets.size).toBe(200);
  });

  it('show only their first random characters as prefix', () => {
    const secret = newApiKeySecret('live');
    expect(apiKeyPrefix(secret)).toBe(secret.slice(0, 'sk_live_'.length + 6));
  });

  it('name their environment, or null when malformed', () => {
    expect(apiKeyEnvironment(newApiKeySecret('live'))).toBe('live');
    expect(apiKeyEnvironment(newApiKeySecret('test'))).toBe('test');
    for (const bad of ['sk_prod_0123456789abcdefghij0123456789ab', 'sk_test_short', 'api_v1_x', '', 'sk_test_has space 0123456789abcdefghij']) {
      expect(apiKeyEnvironment(bad)).toBeNull();
    }
  });
});
