import { Injectable } from '@nestjs/common';
import { ALL_SCOPES, isId, Scope } from '@app/common';
import { OAuthClientRecord, OAuthClientRepository } from '../oauth-client.repository';

/** The parameters of an authorization request that travel through the login and consent forms. */
export const AUTHORIZATION_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;
export type AuthorizationParams = Partial<Record<(typeof AUTHORIZATION_PARAMS)[number], string>>;

/** A request that names a known client and one of its redirect URIs, with every other parameter valid. */
export interface ValidAuthorizationRequest {
  outcome: 'valid';
  client: OAuthClientRecord;
  redirectUri: string;
  scopes: Scope[];
  /** The parameters as the grant logic takes them, redirect URI and scope filled in. */
  params: Record<string, string>;
}

/** No trustworthy redirect URI: the user sees an error page, and nobody is redirected (RFC 6749 4.1.2.1). */
export interface UntrustedAuthorizationRequest {
  outcome: 'error_page';
  message: string;
}

/**
 * A bad parameter with a trustworthy redirect URI. It goes back to the client only once the user
 * has been shown a page of this service; before that an error page, lest anyone could send
 * browsers to any registered URI through this service (RFC 9700 4.11.2).
 */
export interface InvalidAuthorizationRequest {
  outcome: 'invalid';
  redirectUri: string;
  error: string;
  description: string;
  state?: string;
}

export type InspectedAuthorizationRequest = ValidAuthorizationRequest | UntrustedAuthorizationRequest | InvalidAuthorizationRequest;

const VSCHAR = /^[\x20-\x7e]*$/;
const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
const MAX_STATE_LENGTH = 1024;

/** The parameters of a query string or form; a repeated parameter is kept as `null` (RFC 6749 3.1). */
export function readAuthorizationParams(source: unknown): Record<string, string | null> {
  const params: Record<string, string | null> = {};
  if (typeof source !== 'object' || source === null) return params;
  for (const name of AUTHORIZATION_PARAMS) {
    const value: unknown = (source as Record<string, unknown>)[name];
    if (value === undefined) continue;
    params[name] = typeof value === 'string' ? value : null;
  }
  return params;
}

export function errorRedirect(redirectUri: string, error: string, description: string, state: string | undefined): string {
  const url = new URL(redirectUri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  if (state !== undefined) url.searchParams.set('state', state);
  return url.toString();
}

/** Checks an authorization request in the order RFC 6749 4.1.2.1 asks: client and redirect URI first. */
@Injectable()
export class AuthorizationRequestInspector {
  constructor(private readonly clients: OAuthClientRepository) {}

  async inspect(source: unknown): Promise<InspectedAuthorizationRequest> {
    const raw = readAuthorizationParams(source);
    const repeated = Object.entries(raw).find(([, value]) => value === null);
    const clientId = raw.client_id;
    if (!clientId) return { outcome: 'error_page', message: 'The request does not name a client (client_id is missing or repeated).' };
    const client = isId('cli', clientId) ? await this.clients.find(clientId) : null;
    if (!client) return { outcome: 'error_page', message: 'This application is not registered with the service.' };

    const redirectUri = this.redirectUri(client, raw.redirect_uri);
    if (redirectUri === null) {
      return { outcome: 'error_page', message: 'The redirect URI does not match one registered for this application.' };
    }
    const state = typeof raw.state === 'string' && VSCHAR.test(raw.state) && raw.state.length <= MAX_STATE_LENGTH ? raw.state : undefined;
    const refuse = (error: string, description: string): InvalidAuthorizationRequest => ({ outcome: 'invalid', redirectUri, error, description, state });

    if (repeated) return refuse('invalid_request', `The parameter ${repeated[0]} is repeated.`);
    if (raw.state !== undefined && state === undefined) {
      return refuse('invalid_request', `state must be printable ASCII of at most ${MAX_STATE_LENGTH} characters.`);
    }
    if (!raw.response_type) return refuse('invalid_request', 'Missing parameter: response_type.');
    if (raw.response_type !== 'code') return refuse('unsupported_response_type', 'Only response_type=code is supported.');

    const requested = (raw.scope ?? '').split(' ').filter((scope) => scope !== '');
    const unknown = requested.filter((scope) => !(ALL_SCOPES as readonly string[]).includes(scope));
    if (unknown.length > 0) return refuse('invalid_scope', `Unknown scope: ${unknown.join(', ')}.`);
    const beyond = requested.filter((scope) => !(client.scopes as readonly string[]).includes(scope));
    if (beyond.length > 0) return refuse('invalid_scope', `This application may not be granted: ${beyond.join(', ')}.`);
    const scopes = requested.length > 0 ? ([...new Set(requested)] as Scope[]) : client.scopes;

    const method = raw.code_challenge_method;
    if (method !== undefined && method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256.');
    // Every client, confidential ones included, must use PKCE (RFC 9700 2.1.1).
    if (!raw.code_challenge) return refuse('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
    if (!CODE_CHALLENGE.test(raw.code_challenge)) return refuse('invalid_request', 'code_challenge must be 43-128 characters of [A-Za-z0-9._~-].');

    const params: Record<string, string> = {
      response_type: 'code',
      client_id: client.id,
      redirect_uri: redirectUri,
      scope: scopes.join(' '),
      code_challenge: raw.code_challenge,
      code_challenge_method: 'S256',
    };
    if (state !== undefined) params.state = state;
    return { outcome: 'valid', client, redirectUri, scopes, params };
  }

  /** Exact match only; when omitted, the client's one registered URI (RFC 6749 3.1.2.3). */
  private redirectUri(client: OAuthClientRecord, given: string | null | undefined): string | null {
    if (given === undefined) return client.redirectUris.length === 1 ? client.redirectUris[0] : null;
    return given !== null && client.redirectUris.includes(given) ? given : null;
  }
}
