/**
 * The bounds of every list (docs/api.md#pagination), written once. `PAGE_MAX` keeps OFFSET (page x
 * per_page) far inside PostgreSQL's bigint, so no page number can reach the database as an error.
 */
export const PER_PAGE_DEFAULT = 20;
export const PER_PAGE_MAX = 100;
export const PAGE_MAX = 1_000_000_000;

/**
 * A page-number-like query value: plain decimal digits only, so `1e3`, `0x10`, `1.0` and
 * 10^20 never become numbers; NaN for anything else, which every bound check then refuses.
 */
export function queryInteger(value: unknown): number {
  return typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : NaN;
}

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
