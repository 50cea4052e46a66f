import type { ApiClient, CallInit, PathWith, SuccessBody } from './api-types';
import { isRecord } from './json-shapes';

/** The paths whose GET answers a page: `{ data: [...], meta }`. */
export type ListPath = {
  [P in PathWith<'get'>]: SuccessBody<P, 'get'> extends { data: readonly unknown[]; meta: unknown } ? P : never;
}[PathWith<'get'>];
export type ListPage<P extends ListPath> = SuccessBody<P, 'get'>;
export type ListItem<P extends ListPath> = ListPage<P> extends { data: readonly (infer Item)[] } ? Item : never;
export type ListInit<P extends ListPath> = CallInit<P, 'get'>;
/** The options argument, required where the path has parameters (as openapi-fetch makes it). */
export type ListInitArgs<P extends ListPath> = undefined extends ListInit<P> ? [init?: ListInit<P>] : [init: ListInit<P>];

type Query = Record<string, unknown>;
interface LooseInit {
  params?: { query?: Query; path?: Record<string, unknown> };
}
interface LoosePage {
  data: unknown[];
  meta: unknown;
}
/**
 * GET as this module calls it. TypeScript cannot relate a generic list path to openapi-fetch's
 * conditional option and answer types, so the types are checked at the public functions, whose
 * signatures take them from the path.
 */
type LooseGet = (path: string, init: LooseInit) => Promise<{ data?: LoosePage }>;

function hasCursorMeta(meta: Query): meta is { cursor: { next: string | null; has_more: boolean } } {
  return isRecord(meta.cursor) && typeof meta.cursor.has_more === 'boolean';
}

function hasOffsetMeta(meta: Query): meta is { page: number; total_pages: number; links?: { next: string | null } } {
  return typeof meta.page === 'number' && typeof meta.total_pages === 'number';
}

/**
 * The query of the page after the one whose meta is given, or null after the last page.
 * Cursor lists (docs/api.md#cursor-pagination) continue with `meta.cursor.next` while `has_more`; offset lists
 * with the next page number while `meta.links.next` names one. The rest of the query (filters,
 * sort, fields, page size) stays as given, as both styles require.
 */
export function nextPageQuery(meta: unknown, query: Query): Query | null {
  if (!isRecord(meta)) throw new TypeError('The answer has no meta: it is not a list.');
  if (hasCursorMeta(meta)) return meta.cursor.has_more && meta.cursor.next ? { ...query, cursor: meta.cursor.next } : null;
  if (hasOffsetMeta(meta)) {
    const more = meta.links ? meta.links.next !== null : meta.page < meta.total_pages;
    return more ? { ...query, page: meta.page + 1 } : null;
  }
  throw new TypeError('The answer has neither offset nor cursor meta: it is not a list.');
}

async function* loosePages(api: ApiClient, path: string, init: LooseInit): AsyncGenerator<LoosePage, void, undefined> {
  const get = api.GET as unknown as LooseGet;
  let query: Query | null = init.params?.query ?? {};
  while (query) {
    const { data: page } = await get(path, { ...init, params: { ...init.params, query } });
    if (!page) throw new TypeError(`GET ${path} answered without a body: it is not a list.`);
    yield page;
    query = nextPageQuery(page.meta, query);
  }
}

/** Every page of a list, from the one the options ask for to the last, read one at a time. */
export function listPages<P extends ListPath>(
  api: ApiClient,
  path: P,
  ...[init]: ListInitArgs<P>
): AsyncGenerator<ListPage<P>, void, undefined> {
  return loosePages(api, path, init ?? {}) as AsyncGenerator<ListPage<P>, void, undefined>;
}

/** Every record of a list, across all its pages. */
export async function* listItems<P extends ListPath>(
  api: ApiClient,
  path: P,
  ...[init]: ListInitArgs<P>
): AsyncGenerator<ListItem<P>, void, undefined> {
  for await (const page of loosePages(api, path, init ?? {})) yield* page.data as ListItem<P>[];
}
