/**
 * The one rule of who may see an event (decisions 11): an admin sees every event, anyone else
 * the events about records they own. Every query that narrows events to a viewer (GET /events,
 * the relay's webhook matching) builds its condition here, so that organization membership
 * becomes one more OR clause in one place.
 *
 * @param event the SQL alias of the events table
 * @param viewerId an SQL expression for the viewer's user id
 * @param viewerIsAdmin an SQL boolean expression, true when the viewer is a platform admin
 */
export function eventVisibleTo(event: string, viewerId: string, viewerIsAdmin: string): string {
  return `(${viewerIsAdmin} OR ${event}.owner_id = ${viewerId})`;
}
