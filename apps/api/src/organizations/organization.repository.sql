-- Every statement OrganizationRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- countVisible (member)
SELECT count(*)::int AS total FROM organizations o LEFT JOIN organization_members m ON m.organization_id = o.id AND m.user_id = $1 WHERE m.user_id IS NOT NULL;

-- countVisible (admin)
SELECT count(*)::int AS total FROM organizations o LEFT JOIN organization_members m ON m.organization_id = o.id AND m.user_id = $1 WHERE TRUE;

-- pageVisible (member)
SELECT o.id, o.name, o.slug, o.created_at AS "createdAt", o.updated_at AS "updatedAt", m.role AS "callerRole" FROM organizations o LEFT JOIN organization_members m ON m.organization_id = o.id AND m.user_id = $1 WHERE m.user_id IS NOT NULL
ORDER BY o.created_at, o.id LIMIT $2 OFFSET $3;

-- pageVisible (admin)
SELECT o.id, o.name, o.slug, o.created_at AS "createdAt", o.updated_at AS "updatedAt", m.role AS "callerRole" FROM organizations o LEFT JOIN organization_members m ON m.organization_id = o.id AND m.user_id = $1 WHERE TRUE
ORDER BY o.created_at, o.id LIMIT $2 OFFSET $3;

-- findVisible (member)
SELECT o.id, o.name, o.slug, o.created_at AS "createdAt", o.updated_at AS "updatedAt", m.role AS "callerRole" FROM organizations o LEFT JOIN organization_members m ON m.organization_id = o.id AND m.user_id = $1 WHERE m.user_id IS NOT NULL AND o.id = $2;

-- findVisible (admin)
SELECT o.id, o.name, o.slug, o.created_at AS "createdAt", o.updated_at AS "updatedAt", m.role AS "callerRole" FROM organizations o LEFT JOIN organization_members m ON m.organization_id = o.id AND m.user_id = $1 WHERE TRUE AND o.id = $2;

-- findVisible (member, locked)
SELECT o.id, o.name, o.slug, o.created_at AS "createdAt", o.updated_at AS "updatedAt", m.role AS "callerRole" FROM organizations o LEFT JOIN organization_members m ON m.organization_id = o.id AND m.user_id = $1 WHERE m.user_id IS NOT NULL AND o.id = $2 FOR UPDATE OF o;

-- insert
INSERT INTO organizations AS o (id, name, slug) VALUES ($1, $2, $3) RETURNING o.id, o.name, o.slug, o.created_at AS "createdAt", o.updated_at AS "updatedAt";

-- insertOwner
INSERT INTO organization_members (organization_id, user_id, role) VALUES ($1, $2, 'owner');

-- update
UPDATE organizations AS o SET name = COALESCE($2, name), slug = COALESCE($3, slug), updated_at = now()
WHERE id = $1 RETURNING o.id, o.name, o.slug, o.created_at AS "createdAt", o.updated_at AS "updatedAt";

-- slugTaken
SELECT 1 FROM organizations WHERE lower(slug) = lower($1) AND id IS DISTINCT FROM $2;

-- delete
DELETE FROM organizations WHERE id = $1;

-- pageMembers
SELECT t.total, page.*
FROM (SELECT count(*)::int AS total FROM organization_members WHERE organization_id = $1) t
LEFT JOIN (
  SELECT m.user_id AS "userId", m.role, m.created_at AS "createdAt" FROM organization_members m
  WHERE m.organization_id = $1 ORDER BY m.created_at, m.user_id LIMIT $2 OFFSET $3
) page ON TRUE
ORDER BY page."createdAt", page."userId";

-- findMember
SELECT m.user_id AS "userId", m.role, m.created_at AS "createdAt" FROM organization_members m WHERE m.organization_id = $1 AND m.user_id = $2;

-- insertMember
INSERT INTO organization_members AS m (organization_id, user_id, role) VALUES ($1, $2, $3)
ON CONFLICT DO NOTHING RETURNING m.user_id AS "userId", m.role, m.created_at AS "createdAt";

-- deleteMember
DELETE FROM organization_members WHERE organization_id = $1 AND user_id = $2;

-- countOwners
SELECT count(*)::int AS owners FROM organization_members WHERE organization_id = $1 AND role = 'owner';

-- memberships
SELECT organization_id AS "organizationId", role FROM organization_members WHERE user_id = $1;
