-- Every statement WebhookDeliveryRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- insertMissing
WITH given AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[])
    AS d(id, webhook_id, event_id, event_type, body, test)
), inserted AS (
  INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, test, next_attempt_at)
  SELECT d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.test,
         CASE WHEN w.status = 'paused' THEN NULL ELSE now() END
    FROM given d
    JOIN webhooks w ON w.id = d.webhook_id
  ON CONFLICT (event_id, webhook_id) WHERE NOT test DO NOTHING
  RETURNING id, event_id, webhook_id
)
SELECT id, event_id, webhook_id FROM inserted
UNION ALL
SELECT existing.id, existing.event_id, existing.webhook_id
  FROM webhook_deliveries existing
 WHERE NOT existing.test AND (existing.event_id, existing.webhook_id) IN (SELECT event_id, webhook_id FROM given);

-- insertTest
INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, test, status, attempts, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, true, 'pending', '[]', $6) RETURNING id, webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType", body, test, status, attempts,
schedule_start AS "scheduleStart", next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", updated_at AS "updatedAt";

-- page (all)
SELECT id, webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType", body, test, status, attempts,
schedule_start AS "scheduleStart", next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", updated_at AS "updatedAt" FROM webhook_deliveries WHERE webhook_id = $1
     ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3;

-- page (by status and kind)
SELECT id, webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType", body, test, status, attempts,
schedule_start AS "scheduleStart", next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", updated_at AS "updatedAt" FROM webhook_deliveries WHERE webhook_id = $1 AND status = $2 AND event_type = $3
     ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5;

-- count (all)
SELECT count(*)::int AS total FROM webhook_deliveries WHERE webhook_id = $1;

-- count (by status and kind)
SELECT count(*)::int AS total FROM webhook_deliveries WHERE webhook_id = $1 AND status = $2 AND event_type = $3;

-- find
SELECT id, webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType", body, test, status, attempts,
schedule_start AS "scheduleStart", next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", updated_at AS "updatedAt" FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2;

-- listForEvent
SELECT id, webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType", body, test, status, attempts,
schedule_start AS "scheduleStart", next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", updated_at AS "updatedAt" FROM webhook_deliveries
      WHERE event_id = $1 AND NOT test AND webhook_id IN (SELECT webhook.id FROM webhooks webhook WHERE webhook.owner_id = $2)
      ORDER BY created_at ASC;

-- readPending
SELECT d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.test, d.schedule_start,
      jsonb_array_length(d.attempts) AS attempt_count, w.url, w.secret, w.status, w.owner_id,
      CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret
 FROM webhook_deliveries d
 JOIN webhooks w ON w.id = d.webhook_id
WHERE d.id = ANY($1::text[]) AND d.status = 'pending';

-- findOverdue
SELECT d.id, jsonb_array_length(d.attempts) AS attempt_count
 FROM webhook_deliveries d
 JOIN webhooks w ON w.id = d.webhook_id
WHERE d.status = 'pending' AND d.next_attempt_at < now() - $1 * interval '1 millisecond'
  AND (w.status = 'enabled' OR d.test)
ORDER BY d.next_attempt_at
LIMIT $2;

-- recordAttempts
UPDATE webhook_deliveries d
  SET attempts = d.attempts || x.attempt, status = x.status, next_attempt_at = x.next, updated_at = now()
 FROM jsonb_to_recordset($1::jsonb) AS x(id text, attempt jsonb, status text, next timestamptz)
WHERE d.id = x.id;

-- hold
WITH paused AS (
  SELECT w.id FROM webhooks w JOIN webhook_deliveries d ON d.webhook_id = w.id
   WHERE d.id = $1 AND w.status = 'paused'
   FOR SHARE OF w),
held AS (
  UPDATE webhook_deliveries SET next_attempt_at = NULL, updated_at = now()
   WHERE id = $1 AND status = 'pending' AND webhook_id IN (SELECT id FROM paused)
  RETURNING id)
SELECT EXISTS (SELECT 1 FROM held) AS held,
       EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = $1 AND status = 'pending') AS pending;

-- releaseHeld
UPDATE webhook_deliveries SET next_attempt_at = now(), updated_at = now()
 WHERE webhook_id = $1 AND status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= now())
RETURNING id, event_id, jsonb_array_length(attempts) AS attempt_count, created_at;

-- recoverFailed
UPDATE webhook_deliveries
   SET status = 'pending', schedule_start = jsonb_array_length(attempts), next_attempt_at = now(), updated_at = now()
 WHERE webhook_id = $1 AND status = 'failed' AND NOT test AND created_at >= $2 AND created_at < $3
RETURNING id, event_id, jsonb_array_length(attempts) AS attempt_count, created_at;

-- health
WITH owned AS (
  SELECT id FROM webhooks WHERE id = ANY($1::text[]) AND owner_id = $2),
recent AS (
  SELECT webhook_id,
         count(*) FILTER (WHERE status = 'succeeded') AS succeeded,
         count(*) FILTER (WHERE status = 'failed') AS failed,
         count(*) FILTER (WHERE status = 'pending') AS pending
    FROM webhook_deliveries
   WHERE webhook_id IN (SELECT id FROM owned) AND created_at >= now() - interval '24 hours'
   GROUP BY webhook_id)
SELECT owned.id AS webhook_id,
       coalesce(recent.succeeded, 0) AS succeeded, coalesce(recent.failed, 0) AS failed, coalesce(recent.pending, 0) AS pending,
       newest.created_at AS last_created_at, newest.status AS last_status
  FROM owned
  LEFT JOIN recent ON recent.webhook_id = owned.id
  LEFT JOIN LATERAL (
    SELECT created_at, status FROM webhook_deliveries
     WHERE webhook_id = owned.id
     ORDER BY created_at DESC, id DESC
     LIMIT 1) newest ON true;

-- reopen
UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now() WHERE id = $1
     RETURNING id, webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType", body, test, status, attempts,
schedule_start AS "scheduleStart", next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", updated_at AS "updatedAt";
