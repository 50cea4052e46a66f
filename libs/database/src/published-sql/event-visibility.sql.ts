import { organizationIdsOf } from './organization-members.sql';

/**
 * The one rule of who may see an event (docs/api.md#webhooks): an admin sees every event, anyone else
 * the events about records they own and about the records of the organizations they belong
 * to. Every query that narrows events to a viewer builds its condition here, in one of two forms
 * of the same rule: this one, a condition on rows found some other way (the relay's webhook
 * matching, GET /events/{id}), and `newestVisibleEventIds` for the newest-first list.
 *
 * @param event the SQL alias of the events table
 * @param viewerId an SQL expression for the viewer's user id
 * @param viewerIsAdmin an SQL boolean expression, true when the viewer is a platform admin
 */
export function eventVisibleTo(event: string, viewerId: string, viewerIsAdmin: string): string {
  return `(${viewerIsAdmin} OR ${event}.owner_id = ${viewerId} OR ${event}.organization_id IN (
    ${organizationIdsOf(viewerId)}))`;
}

/**
 * The same rule for a newest-first page (GET /events), for a viewer who is not an admin: the ids
 * of the viewer's own newest `limit` events and of each of their organizations' newest `limit`,
 * older than `before` when given, as an SQL array. Each arm walks its own index ((owner_id, id),
 * (organization_id, id)) newest first and stops after `limit`, so a page reads about `limit`
 * entries per arm however large the table is; the page is the newest `limit` of these ids, which
 * are the same rows the condition form would give. With the rule as one condition, PostgreSQL can
 * only walk the primary key newest first and test every event on the way: a page then reads every
 * other account's newer events too, and for a viewer with fewer than a page of events, the table.
 *
 * With `types` (GET /events?type=), each arm is walked once per kind, on (owner_id, type, id) and
 * (organization_id, type, id): a page reads about `limit` entries per arm and kind.
 *
 * @param viewerId an SQL expression for the viewer's user id
 * @param before an SQL expression for the id the page starts after, or null for the first page
 * @param limit an SQL expression for the page size
 * @param types an SQL expression for a text array of event kinds, or null for every kind
 */
export function newestVisibleEventIds(viewerId: string, before: string | null, limit: string, types: string | null = null): string {
  const older = (alias: string): string => (before === null ? '' : ` AND ${alias}.id < ${before}`);
  if (types !== null) {
    return `ARRAY(
    (SELECT own.id FROM unnest(${types}::text[]) AS kind(type)
       CROSS JOIN LATERAL (SELECT e.id FROM events e WHERE e.owner_id = ${viewerId} AND e.type = kind.type${older('e')}
                           ORDER BY e.id DESC LIMIT ${limit}) AS own)
    UNION ALL
    (SELECT shared.id FROM (${organizationIdsOf(viewerId)}) AS mine
       CROSS JOIN unnest(${types}::text[]) AS kind(type)
       CROSS JOIN LATERAL (SELECT e.id FROM events e WHERE e.organization_id = mine.organization_id AND e.type = kind.type${older('e')}
                           ORDER BY e.id DESC LIMIT ${limit}) AS shared))`;
  }
  return `ARRAY(
    (SELECT own.id FROM events own WHERE own.owner_id = ${viewerId}${older('own')} ORDER BY own.id DESC LIMIT ${limit})
    UNION ALL
    (SELECT shared.id FROM (${organizationIdsOf(viewerId)}) AS mine
       CROSS JOIN LATERAL (SELECT e.id FROM events e WHERE e.organization_id = mine.organization_id${older('e')}
                           ORDER BY e.id DESC LIMIT ${limit}) AS shared))`;
}

/**
 * The newest `limit` ids of events of the given kinds, older than `before` when given, for an
 * admin (who sees every event): one walk of (type, id) per kind, as an SQL array.
 */
export function newestEventIdsOfTypes(types: string, before: string | null, limit: string): string {
  const older = before === null ? '' : ` AND e.id < ${before}`;
  return `ARRAY(SELECT typed.id FROM unnest(${types}::text[]) AS kind(type)
    CROSS JOIN LATERAL (SELECT e.id FROM events e WHERE e.type = kind.type${older} ORDER BY e.id DESC LIMIT ${limit}) AS typed)`;
}
