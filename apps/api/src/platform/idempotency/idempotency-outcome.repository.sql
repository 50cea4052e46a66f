-- Every statement IdempotencyOutcomeRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- recordOutcome (in the write's transaction)
INSERT INTO idempotency_outcomes AS o (account_id, key_hash, fingerprint, claim_token, transaction_id, expires_at)
SELECT $1, $2, $3, $4, pg_current_xact_id_if_assigned(), now() + $5 * interval '1 second'
WHERE pg_current_xact_id_if_assigned() IS NOT NULL
ON CONFLICT (account_id, key_hash) DO UPDATE SET
  fingerprint = CASE WHEN o.expires_at <= now() THEN excluded.fingerprint ELSE o.fingerprint END,
  claim_token = CASE WHEN o.expires_at <= now() THEN excluded.claim_token ELSE o.claim_token END,
  response = CASE WHEN o.expires_at <= now() THEN NULL ELSE o.response END,
  transaction_id = CASE WHEN o.expires_at <= now() THEN excluded.transaction_id
                        WHEN o.claim_token = excluded.claim_token THEN COALESCE(excluded.transaction_id, o.transaction_id)
                        ELSE o.transaction_id END,
  expires_at = CASE WHEN o.expires_at <= now() THEN excluded.expires_at ELSE o.expires_at END
RETURNING o.claim_token = $4 AS ours, o.fingerprint = $3 AS same_request, o.response,
          o.transaction_id IS NOT NULL AS took_effect, pg_current_xact_id_if_assigned()::text AS xact_id;

-- recordOutcome (before a write outside a transaction)
INSERT INTO idempotency_outcomes AS o (account_id, key_hash, fingerprint, claim_token, transaction_id, expires_at)
SELECT $1, $2, $3, $4, NULL::xid8, now() + $5 * interval '1 second'

ON CONFLICT (account_id, key_hash) DO UPDATE SET
  fingerprint = CASE WHEN o.expires_at <= now() THEN excluded.fingerprint ELSE o.fingerprint END,
  claim_token = CASE WHEN o.expires_at <= now() THEN excluded.claim_token ELSE o.claim_token END,
  response = CASE WHEN o.expires_at <= now() THEN NULL ELSE o.response END,
  transaction_id = CASE WHEN o.expires_at <= now() THEN excluded.transaction_id
                        WHEN o.claim_token = excluded.claim_token THEN COALESCE(excluded.transaction_id, o.transaction_id)
                        ELSE o.transaction_id END,
  expires_at = CASE WHEN o.expires_at <= now() THEN excluded.expires_at ELSE o.expires_at END
RETURNING o.claim_token = $4 AS ours, o.fingerprint = $3 AS same_request, o.response,
          o.transaction_id IS NOT NULL AS took_effect, pg_current_xact_id_if_assigned()::text AS xact_id;

-- earlierOf
SELECT false AS ours, fingerprint = $3 AS same_request, response, transaction_id IS NOT NULL AS took_effect, NULL AS xact_id
 FROM idempotency_outcomes
WHERE account_id = $1 AND key_hash = $2 AND claim_token <> $4 AND expires_at > now();

-- recordedIn
SELECT EXISTS (SELECT 1 FROM idempotency_outcomes WHERE account_id = $1 AND key_hash = $2 AND transaction_id = $3::xid8) AS recorded;

-- recordAnswer
UPDATE idempotency_outcomes SET response = $4 WHERE account_id = $1 AND key_hash = $2 AND claim_token = $3;

-- discard
DELETE FROM idempotency_outcomes WHERE account_id = $1 AND key_hash = $2 AND claim_token = $3;
