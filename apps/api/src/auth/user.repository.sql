-- Every statement UserRepository sends, by name. Written by `npm run sql:snapshots`;
-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.

-- pageVisible (admin)
SELECT t.total, page.*
     FROM (SELECT count(*)::int AS total FROM users u WHERE TRUE) t
     LEFT JOIN (
       SELECT u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt" FROM users u WHERE TRUE
       ORDER BY u.created_at, u.id
       LIMIT $1 OFFSET $2
     ) page ON TRUE
     ORDER BY page."createdAt", page.id;

-- pageVisible (member)
SELECT t.total, page.*
     FROM (SELECT count(*)::int AS total FROM users u WHERE (u.id = $1 OR u.id IN (SELECT peer.user_id FROM organization_members mine
  JOIN organization_members peer ON peer.organization_id = mine.organization_id
  WHERE mine.user_id = $1))) t
     LEFT JOIN (
       SELECT u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt" FROM users u WHERE (u.id = $1 OR u.id IN (SELECT peer.user_id FROM organization_members mine
  JOIN organization_members peer ON peer.organization_id = mine.organization_id
  WHERE mine.user_id = $1))
       ORDER BY u.created_at, u.id
       LIMIT $2 OFFSET $3
     ) page ON TRUE
     ORDER BY page."createdAt", page.id;

-- pageVisible (member, by search and role)
SELECT t.total, page.*
     FROM (SELECT count(*)::int AS total FROM users u WHERE (u.id = $1 OR u.id IN (SELECT peer.user_id FROM organization_members mine
  JOIN organization_members peer ON peer.organization_id = mine.organization_id
  WHERE mine.user_id = $1)) AND (u.email ILIKE $2 OR u.username ILIKE $2) AND u.role = $3) t
     LEFT JOIN (
       SELECT u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt" FROM users u WHERE (u.id = $1 OR u.id IN (SELECT peer.user_id FROM organization_members mine
  JOIN organization_members peer ON peer.organization_id = mine.organization_id
  WHERE mine.user_id = $1)) AND (u.email ILIKE $2 OR u.username ILIKE $2) AND u.role = $3
       ORDER BY u.created_at, u.id
       LIMIT $4 OFFSET $5
     ) page ON TRUE
     ORDER BY page."createdAt", page.id;

-- findById
SELECT u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt" FROM users u WHERE u.id = $1;

-- findByIdForUpdate
SELECT u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt" FROM users u WHERE u.id = $1 FOR UPDATE;

-- findByEmailWithPassword
SELECT u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt", u.password_hash AS "passwordHash" FROM users u WHERE lower(u.email) = lower($1);

-- findByEmail
SELECT u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt" FROM users u WHERE lower(u.email) = lower($1);

-- takenFields
SELECT u.email, u.username FROM users u WHERE lower(u.email) = lower($1) OR u.username = $2;

-- insert
INSERT INTO users AS u (id, email, username, password_hash, role, plan, first_name, last_name, avatar_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt";

-- update (role and plan)
UPDATE users AS u SET role = $2, plan = $3, updated_at = now() WHERE u.id = $1 RETURNING u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt";

-- update (profile)
UPDATE users AS u SET first_name = $2, last_name = $3, avatar_url = $4, updated_at = now() WHERE u.id = $1 RETURNING u.id, u.email, u.username, u.role, u.plan, u.first_name AS "firstName",
u.last_name AS "lastName", u.avatar_url AS "avatarUrl", u.created_at AS "createdAt", u.updated_at AS "updatedAt";

-- findIdentities
SELECT u.id, u.username, u.email FROM users u WHERE u.id = ANY($1::text[]);

-- findAccount
SELECT u.id, u.role, u.plan FROM users u WHERE u.id = $1;
