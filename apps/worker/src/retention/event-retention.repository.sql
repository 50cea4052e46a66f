-- Every statement EventRetentionRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- deleteFinishedDeliveries
WITH deleted AS (
  DELETE FROM webhook_deliveries WHERE id IN (
    SELECT id FROM webhook_deliveries
     WHERE id < $1 AND status <> 'pending' AND updated_at < now() - $2 * interval '1 day'
     ORDER BY id
     LIMIT $3
       FOR UPDATE SKIP LOCKED)
  RETURNING 1)
SELECT count(*)::int AS count FROM deleted;

-- deleteEvents
WITH deleted AS (
  DELETE FROM events WHERE id IN (
    SELECT e.id FROM events e
     WHERE e.id < $1 AND e.created_at < now() - $2 * interval '1 day' AND e.published_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND NOT d.test)
     ORDER BY e.id
     LIMIT $3
       FOR UPDATE SKIP LOCKED)
  RETURNING 1)
SELECT count(*)::int AS count FROM deleted;

-- deleteExpiredIdempotencyOutcomes
WITH deleted AS (
  DELETE FROM idempotency_outcomes WHERE (account_id, key_hash) IN (
    SELECT account_id, key_hash FROM idempotency_outcomes
     WHERE expires_at < now()
     ORDER BY expires_at
     LIMIT $1
       FOR UPDATE SKIP LOCKED)
  RETURNING 1)
SELECT count(*)::int AS count FROM deleted;
