-- Every statement RefreshTokenRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- insert
INSERT INTO refresh_tokens (id, family_id, user_id, expires_at, created_at, rotated_at, revoked_at)
VALUES ($1, $2, $3, $4, $5, NULL, NULL);

-- markRotated
UPDATE refresh_tokens SET rotated_at = now()
WHERE id = $1 AND family_id = $2 AND user_id = $3 AND rotated_at IS NULL AND revoked_at IS NULL
  AND expires_at > now()
  AND NOT EXISTS (SELECT 1 FROM refresh_tokens revoked WHERE revoked.family_id = $2 AND revoked.revoked_at IS NOT NULL);

-- findState
SELECT rotated_at AS "rotatedAt", revoked_at AS "revokedAt" FROM refresh_tokens WHERE id = $1;

-- revokeFamily
UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL;
