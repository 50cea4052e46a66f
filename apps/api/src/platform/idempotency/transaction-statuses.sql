-- Every statement TransactionStatuses sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- statuses
SELECT pg_xact_status(id::xid8) AS status FROM unnest($1::text[]) WITH ORDINALITY AS asked(id, position) ORDER BY position;
