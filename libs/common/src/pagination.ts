/** A page of records and its meta, rendered by the envelope interceptor as `{ data, meta }`. */
export class Paginated<T> {
  constructor(
    readonly data: T[],
    readonly meta: Record<string, unknown>,
  ) {}
}

export interface OffsetMeta {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
  links: { first: string; prev: string | null; next: string | null; last: string };
}

/**
 * Offset meta with links that keep every other query parameter of the request.
 * `basePath` is the path as the client sent it (for example `/v2/users`).
 */
export function offsetMeta(
  basePath: string,
  query: Record<string, string | number | undefined>,
  page: number,
  perPage: number,
  total: number,
): OffsetMeta {
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const link = (target: number): string => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (key === 'page' || key === 'per_page' || value === undefined) continue;
      params.append(key, String(value));
    }
    params.set('page', String(target));
    params.set('per_page', String(perPage));
    return `${basePath}?${params.toString()}`;
  };
  return {
    page,
    per_page: perPage,
    total,
    total_pages: totalPages,
    links: {
      first: link(1),
      prev: page > 1 ? link(Math.min(page - 1, totalPages)) : null,
      next: page < totalPages ? link(page + 1) : null,
      last: link(totalPages),
    },
  };
}
