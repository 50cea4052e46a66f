-- Every statement EventOutbox sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- append
INSERT INTO events (id, type, data, previous_data, owner_id, organization_id, trace_context)
SELECT id, type, data, previous_data, owner_id, organization_id, trace_context
FROM jsonb_to_recordset($1::jsonb)
  AS x(id text, type text, data jsonb, previous_data jsonb, owner_id text, organization_id text, trace_context jsonb);

-- claimUnpublished
UPDATE events SET published_at = now()
    WHERE id IN (SELECT id FROM events
                  WHERE published_at IS NULL
                  ORDER BY id
                  LIMIT $1
                    FOR UPDATE SKIP LOCKED)
RETURNING id, type, data, previous_data AS "previousData", owner_id AS "ownerId", organization_id AS "organizationId",
          created_at AS "createdAt", published_at AS "publishedAt", trace_context AS "traceContext";

-- release
UPDATE events SET published_at = NULL WHERE id = ANY($1::text[]);
