import type { ResourceMetadata, ResourceMetadataValue, ResourceRecord } from './resource.repository';

/** The writable content of a resource. */
export type ResourceContent = Pick<ResourceRecord, 'name' | 'description' | 'type' | 'status' | 'metadata' | 'tags'>;

const CONTENT_FIELDS = ['name', 'description', 'type', 'status', 'metadata', 'tags'] as const;

/** RFC 7396 JSON Merge Patch of flat metadata: a null value removes the key. */
export function mergeMetadata(
  current: ResourceMetadata,
  patch: Readonly<Record<string, ResourceMetadataValue | undefined>>,
): ResourceMetadata {
  // A Map keeps keys such as "__proto__" as plain data.
  const merged = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else if (value !== undefined) merged.set(key, value);
  }
  return Object.fromEntries(merged);
}

function sameValue(a: ResourceContent[keyof ResourceContent], b: ResourceContent[keyof ResourceContent]): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => item === b[index]);
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const left = Object.entries(a);
    const right = new Map(Object.entries(b));
    return left.length === right.size && left.every(([key, value]) => right.has(key) && right.get(key) === value);
  }
  return a === b;
}

/** The prior values of the fields that differ: the `previous_data` of `resource.updated`. */
export function changedFields(before: ResourceContent, after: ResourceContent): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const field of CONTENT_FIELDS) {
    if (!sameValue(before[field], after[field])) previous[field] = before[field];
  }
  return previous;
}
