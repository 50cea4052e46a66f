-- Every statement ResourceRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- findVisible (member)
SELECT r.id, r.name, r.description, r.type, r.status, r.metadata, r.tags, r.owner_id, r.organization_id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at, to_char(r.deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS deleted_at, r.version FROM resources r
WHERE r.id = $1 AND r.deleted_at IS NULL AND (r.owner_id = $2 OR r.organization_id = ANY(ARRAY(SELECT m.organization_id FROM organization_members m WHERE m.user_id = $2)));

-- findVisible (admin)
SELECT r.id, r.name, r.description, r.type, r.status, r.metadata, r.tags, r.owner_id, r.organization_id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at, to_char(r.deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS deleted_at, r.version FROM resources r
WHERE r.id = $1 AND r.deleted_at IS NULL AND TRUE;

-- lockVisible (member)
SELECT r.id, r.name, r.description, r.type, r.status, r.metadata, r.tags, r.owner_id, r.organization_id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at, to_char(r.deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS deleted_at, r.version FROM resources r
WHERE r.id = $1 AND r.deleted_at IS NULL AND (r.owner_id = $2 OR r.organization_id = ANY(ARRAY(SELECT m.organization_id FROM organization_members m WHERE m.user_id = $2)))
FOR UPDATE;

-- lockVisible (member, deleted too)
SELECT r.id, r.name, r.description, r.type, r.status, r.metadata, r.tags, r.owner_id, r.organization_id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at, to_char(r.deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS deleted_at, r.version FROM resources r
WHERE r.id = $1  AND (r.owner_id = $2 OR r.organization_id = ANY(ARRAY(SELECT m.organization_id FROM organization_members m WHERE m.user_id = $2)))
FOR UPDATE;

-- lockVisible (admin)
SELECT r.id, r.name, r.description, r.type, r.status, r.metadata, r.tags, r.owner_id, r.organization_id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at, to_char(r.deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS deleted_at, r.version FROM resources r
WHERE r.id = $1 AND r.deleted_at IS NULL AND TRUE
FOR UPDATE;

-- lockManyVisible
SELECT r.id, r.name, r.description, r.type, r.status, r.metadata, r.tags, r.owner_id, r.organization_id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at, to_char(r.deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS deleted_at, r.version FROM resources r
WHERE r.id = ANY($1::text[]) AND r.deleted_at IS NULL AND (r.owner_id = $2 OR r.organization_id = ANY(ARRAY(SELECT m.organization_id FROM organization_members m WHERE m.user_id = $2)))
ORDER BY r.id
FOR UPDATE;

-- insert
INSERT INTO resources
  (id, owner_id, organization_id, name, description, type, status, metadata, tags, version, created_at, updated_at)
SELECT id, owner_id, organization_id, name, description, type, status, metadata, tags, 1, created_at, created_at
FROM jsonb_to_recordset($1::jsonb)
  AS x(id text, name text, description text, type text, status text, metadata jsonb, tags jsonb, owner_id text, organization_id text, created_at timestamptz);

-- updateContent
UPDATE resources r
SET name = x.name, description = x.description, type = x.type, status = x.status,
    metadata = x.metadata, tags = x.tags, updated_at = x.updated_at, version = r.version + 1
FROM jsonb_to_recordset($1::jsonb) AS x(id text, name text, description text, type text, status text, metadata jsonb, tags jsonb, updated_at timestamptz)
WHERE r.id = x.id;

-- move
UPDATE resources SET organization_id = $2 WHERE id = $1;

-- softDelete
UPDATE resources SET deleted_at = $2, updated_at = $2, version = version + 1 WHERE id = $1;

-- hardDelete
DELETE FROM resources WHERE id = $1;

-- pageByOffset (member of no organization)
SELECT t.total, r.id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, r.name, r.type, r.status, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at
FROM (SELECT count(*)::int AS total FROM resources r WHERE r.deleted_at IS NULL AND r.owner_id = $1) t
LEFT JOIN (
  resources r
  JOIN (SELECT r.id FROM resources r WHERE r.deleted_at IS NULL AND r.owner_id = $1 ORDER BY r.created_at DESC, r.id DESC
        LIMIT $2 OFFSET $3) page ON page.id = r.id
) ON TRUE
ORDER BY r.created_at DESC, r.id DESC;

-- pageByOffset (member of organizations, filtered)
SELECT t.total, r.id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, r.name, r.type, r.status, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at
FROM (SELECT count(*)::int AS total FROM resources r WHERE r.deleted_at IS NULL AND (r.owner_id = $1 OR r.organization_id = ANY($2::text[])) AND r.status = ANY($3::text[]) AND r.type = ANY($4::text[])) t
LEFT JOIN (
  resources r
  JOIN (SELECT r.id FROM resources r WHERE r.deleted_at IS NULL AND (r.owner_id = $1 OR r.organization_id = ANY($2::text[])) AND r.status = ANY($3::text[]) AND r.type = ANY($4::text[]) ORDER BY r.created_at DESC, r.id DESC
        LIMIT $5 OFFSET $6) page ON page.id = r.id
) ON TRUE
ORDER BY r.created_at DESC, r.id DESC;

-- pageByOffset (admin)
SELECT t.total, r.id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, r.name, r.type, r.status, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at
FROM (SELECT count(*)::int AS total FROM resources r WHERE r.deleted_at IS NULL AND TRUE) t
LEFT JOIN (
  resources r
  JOIN (SELECT r.id FROM resources r WHERE r.deleted_at IS NULL AND TRUE ORDER BY r.created_at DESC, r.id DESC
        LIMIT $1 OFFSET $2) page ON page.id = r.id
) ON TRUE
ORDER BY r.created_at DESC, r.id DESC;

-- pageByKeyset (first page)
SELECT r.id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, r.name, r.type, r.status, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at FROM resources r
WHERE r.deleted_at IS NULL AND (r.owner_id = $1 OR r.organization_id = ANY($2::text[]))
ORDER BY r.created_at DESC, r.id DESC
LIMIT $3;

-- pageByKeyset (after a position)
SELECT r.id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, r.name, r.type, r.status, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at, (SELECT 1 FROM resources r WHERE r.deleted_at IS NULL AND (r.owner_id = $1 OR r.organization_id = ANY($2::text[])) AND (r.created_at, r.id) >= ($5::timestamptz, $6::text)
          ORDER BY r.created_at ASC, r.id ASC LIMIT 1) IS NOT NULL AS has_behind FROM resources r
WHERE r.deleted_at IS NULL AND (r.owner_id = $1 OR r.organization_id = ANY($2::text[])) AND (r.created_at, r.id) < ($3::timestamptz, $4::text)
ORDER BY r.created_at DESC, r.id DESC
LIMIT $7;

-- pageByKeyset (before a position, mixed directions)
SELECT r.id, r.name, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, r.type, r.status, to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at, (SELECT 1 FROM resources r WHERE r.deleted_at IS NULL AND r.owner_id = $1 AND r.name >= $5::text AND ((r.name > $5::text) OR (r.name = $5::text AND r.created_at < $6::timestamptz) OR (r.name = $5::text AND r.created_at = $6::timestamptz AND r.id <= $7::text))
          ORDER BY r.name ASC, r.created_at DESC, r.id DESC LIMIT 1) IS NOT NULL AS has_behind FROM resources r
WHERE r.deleted_at IS NULL AND r.owner_id = $1 AND r.name <= $2::text AND ((r.name < $2::text) OR (r.name = $2::text AND r.created_at > $3::timestamptz) OR (r.name = $2::text AND r.created_at = $3::timestamptz AND r.id > $4::text))
ORDER BY r.name DESC, r.created_at ASC, r.id ASC
LIMIT $8;
