import { ApiTags } from '@nestjs/swagger';

/**
 * The document's tags, declared once and in the order a newcomer meets them: getting a
 * credential first, then the records, then the other ways to authenticate, operations last.
 */
export const API_TAGS = [
  {
    name: 'Authentication',
    description:
      'Register an account, log in with email and password for a JWT access token (15 minutes) and a refresh token ' +
      '(30 days, rotated on every use), log out, and exchange a token of the earlier API version. Send the access ' +
      'token as `Authorization: Bearer <token>`.',
  },
  {
    name: 'Users',
    description: "The calling user and their profile; the users who share an organization with them; platform admins change a user's role and plan.",
  },
  {
    name: 'Resources',
    description:
      'Generic records with a name, a type, a status, tags and free-form metadata. Offset or cursor pages, sparse ' +
      'fieldsets, ETags with `If-Match` / `If-None-Match`, atomic bulk create and update.',
  },
  {
    name: 'Organizations',
    description: 'Organizations and their members (`owner`, `admin`, `member`, `viewer`); resources of an organization are visible to its members.',
  },
  {
    name: 'Webhooks',
    description:
      'Endpoints of yours that receive signed event deliveries (see the `webhooks` section of this document for ' +
      'each payload and its signature headers), with every delivery and attempt kept, retried and testable.',
  },
  {
    name: 'Events',
    description: 'Every change the service made, as delivered to webhooks, newest first.',
  },
  {
    name: 'API keys',
    description: 'Long-lived keys with scopes, sent as `X-API-Key`. Managed with a JWT or session login only.',
  },
  {
    name: 'Session',
    description: 'A cookie login for browsers; unsafe methods made with it carry `X-CSRF-Token`.',
  },
  {
    name: 'OAuth clients',
    description: 'Register the applications that ask users for access through OAuth 2.0. Managed with a JWT or session login only.',
  },
  {
    name: 'OAuth 2.0',
    description:
      'The authorization server (RFC 6749, PKCE required): the browser pages of the authorization endpoint, the token, ' +
      'revocation and introspection endpoints, and its metadata (RFC 8414). These answer in RFC form, not in the envelope.',
  },
  {
    name: 'Operations',
    description: 'Probes and metrics for whoever runs the service; no credential, never rate limited.',
  },
] as const;

export type ApiTagName = (typeof API_TAGS)[number]['name'];

/** Tags a controller with one declared tag; a name outside API_TAGS does not compile. */
export const ApiTag = (name: ApiTagName): MethodDecorator & ClassDecorator => ApiTags(name);
