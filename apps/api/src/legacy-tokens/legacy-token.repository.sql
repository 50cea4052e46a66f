-- Every statement LegacyTokenRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- knownEmails
SELECT account.email FROM (SELECT id, lower(email) AS email, role = 'admin' AS is_admin FROM users) account WHERE account.email = ANY($1::text[]);

-- importBatch
INSERT INTO legacy_tokens (token_hash, user_id)
SELECT DISTINCT ON (t.token_hash) t.token_hash, u.id
FROM unnest($1::text[], $2::text[]) AS t (token_hash, email)
JOIN (SELECT id, lower(email) AS email, role = 'admin' AS is_admin FROM users) u ON u.email = lower(t.email)
ON CONFLICT (token_hash) DO NOTHING
RETURNING token_hash;

-- consume
UPDATE legacy_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL RETURNING user_id;

-- isUsed
SELECT 1 FROM legacy_tokens WHERE token_hash = $1 AND used_at IS NOT NULL;
