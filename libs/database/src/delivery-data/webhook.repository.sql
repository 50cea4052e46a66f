-- Every statement WebhookRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- insert
INSERT INTO webhooks (id, owner_id, url, events, secret, description, status, disabled_reason)
     VALUES ($1, $2, $3, $4, $5, $6, 'enabled', NULL) RETURNING id, owner_id AS "ownerId", url, events, previous_secret_expires_at AS "previousSecretExpiresAt", status,
description, disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt";

-- pageOwned
SELECT id, owner_id AS "ownerId", url, events, previous_secret_expires_at AS "previousSecretExpiresAt", status,
description, disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt", count(*) OVER ()::int AS total FROM webhooks
     WHERE owner_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3;

-- countOwned
SELECT count(*)::int AS total FROM webhooks WHERE owner_id = $1;

-- findOwned
SELECT id, owner_id AS "ownerId", url, events, previous_secret_expires_at AS "previousSecretExpiresAt", status,
description, disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt" FROM webhooks WHERE id = $1 AND owner_id = $2;

-- update (url and events)
UPDATE webhooks SET url = $3, events = $4, updated_at = now() WHERE id = $1 AND owner_id = $2 RETURNING id, owner_id AS "ownerId", url, events, previous_secret_expires_at AS "previousSecretExpiresAt", status,
description, disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt";

-- update (every field, enabled)
UPDATE webhooks SET url = $3, events = $4, secret = $5, description = $6, status = $7, disabled_reason = NULL, updated_at = now() WHERE id = $1 AND owner_id = $2 RETURNING id, owner_id AS "ownerId", url, events, previous_secret_expires_at AS "previousSecretExpiresAt", status,
description, disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt";

-- delete
DELETE FROM webhooks WHERE id = $1 AND owner_id = $2;

-- disable
UPDATE webhooks SET status = 'disabled', disabled_reason = $2, updated_at = now() WHERE id = $1 AND status <> 'paused';

-- rotateSecret
UPDATE webhooks
        SET previous_secret = secret, secret = $3, previous_secret_expires_at = $4, updated_at = now()
      WHERE id = $1 AND owner_id = $2
     RETURNING id, owner_id AS "ownerId", url, events, previous_secret_expires_at AS "previousSecretExpiresAt", status,
description, disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt";

-- matchEvents
SELECT event.id AS event_id, webhook.id AS webhook_id
     FROM events event
     JOIN webhooks webhook ON webhook.status <> 'disabled' AND event.type = ANY(webhook.events)
     JOIN (SELECT id, lower(email) AS email, role = 'admin' AS is_admin FROM users) owner ON owner.id = webhook.owner_id
    WHERE event.id = ANY($1::text[])
      AND (owner.is_admin OR event.owner_id = webhook.owner_id OR event.organization_id IN (
SELECT m.organization_id FROM organization_members m WHERE m.user_id = webhook.owner_id))
    ORDER BY event.id, webhook.id;
