-- Every statement OAuthClientRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- insert
INSERT INTO oauth_clients (id, owner_id, name, redirect_uris, scopes, confidential, secret_hash)
VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, owner_id, name, redirect_uris, scopes, confidential, secret_hash, created_at;

-- pageOwned
SELECT id, owner_id, name, redirect_uris, scopes, confidential, secret_hash, created_at, count(*) OVER ()::int AS total FROM oauth_clients
WHERE owner_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3;

-- countOwned
SELECT count(*)::int AS total FROM oauth_clients WHERE owner_id = $1;

-- findOwned
SELECT id, owner_id, name, redirect_uris, scopes, confidential, secret_hash, created_at FROM oauth_clients WHERE id = $1 AND owner_id = $2;

-- find
SELECT id, owner_id, name, redirect_uris, scopes, confidential, secret_hash, created_at FROM oauth_clients WHERE id = $1;

-- deleteOwned
DELETE FROM oauth_clients WHERE id = $1 AND owner_id = $2;
