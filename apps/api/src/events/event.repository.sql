-- Every statement EventRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- listVisible (member)
SELECT event.id, event.type, event.data, event.previous_data AS "previousData", event.owner_id AS "ownerId",
event.organization_id AS "organizationId", event.created_at AS "createdAt", event.published_at AS "publishedAt",
event.trace_context AS "traceContext" FROM events event
     WHERE event.id = ANY(ARRAY(
  (SELECT own.id FROM events own WHERE own.owner_id = $2 ORDER BY own.id DESC LIMIT $1)
  UNION ALL
  (SELECT shared.id FROM (SELECT m.organization_id FROM organization_members m WHERE m.user_id = $2) AS mine
     CROSS JOIN LATERAL (SELECT e.id FROM events e WHERE e.organization_id = mine.organization_id
                         ORDER BY e.id DESC LIMIT $1) AS shared)))
     ORDER BY event.id DESC LIMIT $1;

-- listVisible (member, older than an event, of some kinds)
SELECT event.id, event.type, event.data, event.previous_data AS "previousData", event.owner_id AS "ownerId",
event.organization_id AS "organizationId", event.created_at AS "createdAt", event.published_at AS "publishedAt",
event.trace_context AS "traceContext" FROM events event
     WHERE event.id < $1 AND event.type = ANY($2) AND event.id = ANY(ARRAY(
  (SELECT own.id FROM unnest($2::text[]) AS kind(type)
     CROSS JOIN LATERAL (SELECT e.id FROM events e WHERE e.owner_id = $4 AND e.type = kind.type AND e.id < $1
                         ORDER BY e.id DESC LIMIT $3) AS own)
  UNION ALL
  (SELECT shared.id FROM (SELECT m.organization_id FROM organization_members m WHERE m.user_id = $4) AS mine
     CROSS JOIN unnest($2::text[]) AS kind(type)
     CROSS JOIN LATERAL (SELECT e.id FROM events e WHERE e.organization_id = mine.organization_id AND e.type = kind.type AND e.id < $1
                         ORDER BY e.id DESC LIMIT $3) AS shared)))
     ORDER BY event.id DESC LIMIT $3;

-- listVisible (admin)
SELECT event.id, event.type, event.data, event.previous_data AS "previousData", event.owner_id AS "ownerId",
event.organization_id AS "organizationId", event.created_at AS "createdAt", event.published_at AS "publishedAt",
event.trace_context AS "traceContext" FROM events event
     ORDER BY event.id DESC LIMIT $1;

-- listVisible (admin, older than an event, of some kinds)
SELECT event.id, event.type, event.data, event.previous_data AS "previousData", event.owner_id AS "ownerId",
event.organization_id AS "organizationId", event.created_at AS "createdAt", event.published_at AS "publishedAt",
event.trace_context AS "traceContext" FROM events event
     WHERE event.id < $1 AND event.type = ANY($2) AND event.id = ANY(ARRAY(SELECT typed.id FROM unnest($2::text[]) AS kind(type)
  CROSS JOIN LATERAL (SELECT e.id FROM events e WHERE e.type = kind.type AND e.id < $1 ORDER BY e.id DESC LIMIT $3) AS typed))
     ORDER BY event.id DESC LIMIT $3;

-- findVisible
SELECT event.id, event.type, event.data, event.previous_data AS "previousData", event.owner_id AS "ownerId",
event.organization_id AS "organizationId", event.created_at AS "createdAt", event.published_at AS "publishedAt",
event.trace_context AS "traceContext" FROM events event WHERE event.id = $1 AND ($3 OR event.owner_id = $2 OR event.organization_id IN (
  SELECT m.organization_id FROM organization_members m WHERE m.user_id = $2));
