import type { ApiUnderTest, TestUser } from './support';

/** Shared pieces of the resource suites. */

/** A resource as the API answers it, for tests. */
export interface ResourceJson {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

export function bearer(user: TestUser): { Authorization: string } {
  return { Authorization: `Bearer ${user.accessToken}` };
}

/** Creates `count` resources named `${prefix}-<n>` through bulk create, 100 per request. */
export async function seedResources(
  t: ApiUnderTest,
  user: TestUser,
  count: number,
  prefix = 'seed',
): Promise<Array<{ id: string; name: string }>> {
  const created: Array<{ id: string; name: string }> = [];
  for (let start = 0; start < count; start += 100) {
    const resources = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({
      name: `${prefix}-${String(start + i).padStart(4, '0')}`,
    }));
    const res = await t.http.post('/v2/resources/bulk').set(bearer(user)).send({ resources }).expect(201);
    created.push(...(res.body.data as Array<{ id: string; name: string }>));
  }
  return created;
}

export interface EventRow {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
  previous_data: Record<string, unknown> | null;
  owner_id: string | null;
  organization_id: string | null;
}

/** Event rows about one resource, oldest first. */
export function eventsOf(t: ApiUnderTest, resourceId: string): Promise<EventRow[]> {
  return t.db.query(`SELECT * FROM events WHERE data->'object'->>'id' = $1 ORDER BY created_at, id`, [resourceId]);
}

export function fieldsOf(body: { error?: { details?: Array<{ field: string }> } }): string[] {
  return (body.error?.details ?? []).map((detail) => detail.field);
}
