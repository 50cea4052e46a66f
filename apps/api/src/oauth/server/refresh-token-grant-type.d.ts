/** The library's refresh token grant, which its index does not export: what `ScopeCheckedRefreshTokenGrant` uses of it. */
declare module '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type' {
  import OAuth2Server from '@node-oauth/oauth2-server';

  class RefreshTokenGrantType extends OAuth2Server.AbstractGrantType {
    handle(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.Token>;
    getRefreshToken(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.RefreshToken>;
    /** The requested scope, refused with `invalid_scope` when it goes beyond the token's. */
    getScope(request: OAuth2Server.Request, token?: OAuth2Server.RefreshToken): string[];
    revokeToken(token: OAuth2Server.RefreshToken): Promise<OAuth2Server.RefreshToken>;
    saveToken(user: OAuth2Server.User, client: OAuth2Server.Client, scope: string[]): Promise<OAuth2Server.Token>;
  }

  export = RefreshTokenGrantType;
}
