-- Every statement OAuthGrantRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- insertCode
INSERT INTO oauth_authorization_codes
  (code_hash, grant_id, client_id, user_id, redirect_uri, scopes, code_challenge, code_challenge_method, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- findCode
SELECT * FROM oauth_authorization_codes WHERE code_hash = $1;

-- useCode
UPDATE oauth_authorization_codes SET used_at = now() WHERE code_hash = $1 AND used_at IS NULL;

-- insertTokens
INSERT INTO oauth_tokens (id, token_hash, kind, grant_id, client_id, user_id, scopes, expires_at)
SELECT id, token_hash, kind, grant_id, client_id, user_id, scopes::text[], expires_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
  AS t (id, token_hash, kind, grant_id, client_id, user_id, scopes, expires_at);

-- findToken
SELECT t.id, t.token_hash, t.kind, t.grant_id, t.client_id, t.user_id, t.scopes, t.expires_at, t.created_at,
       COALESCE(t.revoked_at, g.revoked_at) AS revoked_at
FROM oauth_tokens t LEFT JOIN oauth_revoked_grants g ON g.grant_id = t.grant_id
WHERE t.token_hash = $1;

-- revokeToken
UPDATE oauth_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL;

-- revokeGrant
INSERT INTO oauth_revoked_grants (grant_id) VALUES ($1) ON CONFLICT (grant_id) DO NOTHING;

-- useCodesOfGrant
UPDATE oauth_authorization_codes SET used_at = now() WHERE grant_id = $1 AND used_at IS NULL;
