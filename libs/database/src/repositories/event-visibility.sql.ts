import { organizationIdsOf } from './organization-members.sql';

/**
 * The one rule of who may see an event (docs/api.md#webhooks): an admin sees every event, anyone else
 * the events about records they own and about the records of the organizations they belong
 * to. Every query that narrows events to a viewer (GET /events, the relay's webhook matching)
 * builds its condition here.
 *
 * @param event the SQL alias of the events table
 * @param viewerId an SQL expression for the viewer's user id
 * @param viewerIsAdmin an SQL boolean expression, true when the viewer is a platform admin
 */
export function eventVisibleTo(event: string, viewerId: string, viewerIsAdmin: string): string {
  return `(${viewerIsAdmin} OR ${event}.owner_id = ${viewerId} OR ${event}.organization_id IN (
    ${organizationIdsOf(viewerId)}))`;
}
