import type { CredentialCarrier, CredentialDescriptor } from '../auth/credential';

export const API_KEY_HEADER = 'X-API-Key';
/** The header's name as Node keys it in `req.headers`, lowercased once: a name made per lookup is hashed again each time. */
const API_KEY_HEADER_KEY = API_KEY_HEADER.toLowerCase();

/** The shape of this service's API keys (`sk_live_...`, `sk_test_...`), whichever the environment. */
const API_KEY_SECRET = /^sk_(live|test)_/;
/** The first generation of keys, removed (docs/api.md#authentication). */
const FIRST_GENERATION_KEY = 'api_v1_';

const FIRST_GENERATION_REMOVED = `First-generation API keys (${FIRST_GENERATION_KEY}...) have been removed: create a key with POST /v2/api-keys and send it in ${API_KEY_HEADER}.`;

function headerOf(req: CredentialCarrier): string | undefined {
  const value = req.headers[API_KEY_HEADER_KEY];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * `X-API-Key: sk_<environment>_...`. Keys of the first generation, keys in the `api_key` query
 * parameter and keys sent as bearer tokens (as a client written for Stripe sends them) are
 * refused, each naming where a key goes. A revoked key is refused where it is verified.
 */
export const API_KEY_CREDENTIAL: CredentialDescriptor = {
  kind: 'api_key',
  label: 'API key',
  accountLabel: 'API key',
  carriage: { isCarriedBy: (req) => headerOf(req) !== undefined },
  carriedAs: `an ${API_KEY_HEADER} header`,
  askedForAs: `an ${API_KEY_HEADER} header`,
  refusal: () => `The ${API_KEY_HEADER} header is empty: send an API key.`,
  authorizationSchemes: {
    replaced: { basic: { removed: 'HTTP Basic authentication', instead: `send an API key in ${API_KEY_HEADER}` } },
  },
  removedFormIn: (req) => {
    if (headerOf(req)?.startsWith(FIRST_GENERATION_KEY)) return FIRST_GENERATION_REMOVED;
    if (typeof req.query === 'object' && req.query !== null && 'api_key' in req.query) {
      return `API keys in the api_key query parameter are disabled: send the key in the ${API_KEY_HEADER} header.`;
    }
    return null;
  },
  misplacedAsBearer: (token) => {
    if (API_KEY_SECRET.test(token)) return `API keys are not bearer tokens: send the key in the ${API_KEY_HEADER} header, without an Authorization header.`;
    return token.startsWith(FIRST_GENERATION_KEY) ? FIRST_GENERATION_REMOVED : null;
  },
};
