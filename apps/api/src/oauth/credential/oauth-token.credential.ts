import { OAUTH_ACCESS_TOKEN_PREFIX } from '@app/common';
import type { CredentialDescriptor } from '../../auth/credential';

/**
 * An OAuth 2.0 access token, `Authorization: Bearer oat_...`: its prefix tells it from a JWT. It
 * replaced OAuth 1.0 (docs/api.md#authentication). A revoked token is refused where it is verified, in the database.
 */
export const OAUTH_TOKEN_CREDENTIAL: CredentialDescriptor = {
  kind: 'oauth',
  label: 'OAuth token',
  accountLabel: 'OAuth access token',
  carriage: { bearerPrefix: OAUTH_ACCESS_TOKEN_PREFIX },
  carriedAs: 'an OAuth access token',
  refusal: () => 'The OAuth access token is missing or invalid.',
  authorizationSchemes: {
    replaced: {
      oauth: { removed: 'OAuth 1.0', instead: 'get an OAuth 2.0 access token from /oauth/token and send Authorization: Bearer <access_token>' },
    },
  },
};
