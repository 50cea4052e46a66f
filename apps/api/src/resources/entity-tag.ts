/** The strong ETag of a resource version (decisions 12). */
export function entityTag(version: number): string {
  return `"${version}"`;
}

/**
 * RFC 9110 If-Match with strong comparison: true when the header is absent, is `*` (the
 * resource exists), or lists the current tag. A weak tag (`W/"3"`) never matches. A bare
 * version (`3`) is taken as its quoted tag, a common client mistake.
 */
export function ifMatchSatisfied(header: string | undefined, version: number): boolean {
  if (header === undefined) return true;
  const current = entityTag(version);
  return header
    .split(',')
    .map((candidate) => candidate.trim())
    .some((candidate) => candidate === '*' || candidate === current || candidate === String(version));
}
