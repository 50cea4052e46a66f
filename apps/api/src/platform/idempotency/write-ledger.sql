-- Every statement WriteLedgerSubscriber sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- transactionId
SELECT pg_current_xact_id_if_assigned()::text AS id;
