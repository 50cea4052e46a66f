/**
 * What other contexts' statements may read of organization_members, as subqueries to embed: the
 * table's shape stays the organizations context's to change. Both read by the index on
 * (user_id, organization_id).
 *
 * @param user an SQL expression for a user id
 */
export function organizationIdsOf(user: string): string {
  return `SELECT m.organization_id FROM organization_members m WHERE m.user_id = ${user}`;
}

/** The users who share an organization with `user`, themselves included when they belong to one. */
export function organizationPeersOf(user: string): string {
  return `SELECT peer.user_id FROM organization_members mine
    JOIN organization_members peer ON peer.organization_id = mine.organization_id
    WHERE mine.user_id = ${user}`;
}
