export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const PLATFORM_ROLES = ['user', 'admin'] as const;
export type PlatformRole = (typeof PLATFORM_ROLES)[number];

export const SCOPE_AREAS = ['resources', 'organizations', 'users', 'webhooks', 'events'] as const;
export type ScopeArea = (typeof SCOPE_AREAS)[number];
export type Scope = `${'read' | 'write'}:${ScopeArea}`;
export const ALL_SCOPES: readonly Scope[] = SCOPE_AREAS.flatMap((area) => [
  `read:${area}` as const,
  `write:${area}` as const,
]);

export type CredentialKind = 'jwt' | 'api_key' | 'session' | 'oauth';

/** OAuth access tokens are opaque and start with this, so a bearer token names its own kind. */
export const OAUTH_ACCESS_TOKEN_PREFIX = 'oat_';

/** Who is calling and with what: set on the request by the authentication guard. */
export interface AuthContext {
  userId: string;
  role: PlatformRole;
  plan: Plan;
  credential: CredentialKind;
  /** Scopes the credential may act with; JWT and session logins carry every scope. */
  scopes: readonly Scope[];
  /** The id of the credential itself (JWT id, API key id, session id, OAuth token id). */
  credentialId: string;
  /** Seconds since epoch at which the credential stops being valid, when it has an end. */
  expiresAt?: number;
  /** Refresh family of a JWT access token, revoked together on logout or reuse. */
  familyId?: string;
}
