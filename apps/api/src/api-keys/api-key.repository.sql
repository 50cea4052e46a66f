-- Every statement ApiKeyRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- insert
INSERT INTO api_keys (id, user_id, name, scopes, prefix, secret_hash, expires_at, created_at, last_used_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, NULL) RETURNING id, user_id AS "userId", name, scopes, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt",
expires_at AS "expiresAt", revoked_at AS "revokedAt";

-- pageLive
SELECT id, user_id AS "userId", name, scopes, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt",
expires_at AS "expiresAt", revoked_at AS "revokedAt", count(*) OVER ()::int AS total FROM api_keys
     WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3;

-- countLive
SELECT count(*)::int AS total FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL;

-- lockOwned
SELECT id, user_id AS "userId", name, scopes, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt",
expires_at AS "expiresAt", revoked_at AS "revokedAt" FROM api_keys WHERE id = $1 AND user_id = $2 FOR UPDATE;

-- setExpiry
UPDATE api_keys SET expires_at = $2 WHERE id = $1;

-- findLive
SELECT id, user_id AS "userId", name, scopes, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt",
expires_at AS "expiresAt", revoked_at AS "revokedAt" FROM api_keys WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL;

-- revoke
UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL;

-- findBySecretHash
SELECT id, user_id AS "userId", name, scopes, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt",
expires_at AS "expiresAt", revoked_at AS "revokedAt" FROM api_keys WHERE secret_hash = $1;

-- touch
UPDATE api_keys SET last_used_at = now()
WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute');
