/** The strong ETag of a resource version (docs/api.md#conditional-requests). */
export function entityTag(version: number): string {
  return `"${version}"`;
}

/** The members of an If-Match / If-None-Match list; a bare version (`3`) is taken as `"3"`. */
function listedTags(header: string): string[] {
  return header
    .split(',')
    .map((candidate) => candidate.trim())
    .filter((candidate) => candidate.length > 0)
    .map((candidate) => (/^\d+$/.test(candidate) ? `"${candidate}"` : candidate));
}

/**
 * RFC 9110 13.1.1 If-Match, strong comparison: true when the header is absent, is `*` (the
 * resource exists), or lists the current tag. A weak tag (`W/"3"`) never matches.
 */
export function ifMatchSatisfied(header: string | undefined, version: number): boolean {
  if (header === undefined) return true;
  const current = entityTag(version);
  return listedTags(header).some((candidate) => candidate === '*' || candidate === current);
}

/**
 * RFC 9110 13.1.2 If-None-Match, weak comparison: true when the header is `*` or lists the
 * current tag with or without `W/`, so the client's copy is current and a GET answers 304.
 */
export function ifNoneMatchMatches(header: string | undefined, version: number): boolean {
  if (header === undefined) return false;
  const current = entityTag(version);
  return listedTags(header).some(
    (candidate) => candidate === '*' || candidate === current || candidate === `W/${current}`,
  );
}
