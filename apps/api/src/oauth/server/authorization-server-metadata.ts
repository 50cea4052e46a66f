import { ALL_SCOPES } from '@app/common';
import { OFFERED_GRANT_TYPES } from './oauth-grant-model';
import type { AuthorizationServerMetadataView } from './oauth-server.views';

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];

/** RFC 8414 metadata for the server whose issuer is `issuer`, PUBLIC_URL. */
export function authorizationServerMetadata(issuer: string): AuthorizationServerMetadataView {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...OFFERED_GRANT_TYPES],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  };
}
