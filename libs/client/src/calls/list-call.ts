import { nextPageQuery } from '../pagination';
import type { FetchAnswer, WithResponse } from './api-call';
import { responseInfoOf } from './response-info';

/** One page of a list as the service sends it: the records and the pagination `meta`. */
export interface Page<T, Meta> {
  readonly data: T[];
  readonly meta: Meta;
}

type Query = Record<string, unknown>;
/** Reads the page the query asks for. */
export type PageReader<T, Meta> = (query: Query) => Promise<FetchAnswer<Page<T, Meta>>>;

/**
 * A list (`rms.resources.list(query)`). Awaited, it gives the page the query asks for (and
 * `.withResponse()` that page with its response); iterated with `for await`, every record from
 * that page to the last; `.pages()` every page with its response. Nothing is sent until one
 * of these is used, and the first page is read once however often it is awaited.
 */
export class ListCall<T, Meta> implements PromiseLike<Page<T, Meta>>, AsyncIterable<T> {
  private firstPage: Promise<WithResponse<Page<T, Meta>>> | undefined;

  constructor(
    private readonly readPage: PageReader<T, Meta>,
    private readonly query: Query,
  ) {}

  withResponse(): Promise<WithResponse<Page<T, Meta>>> {
    this.firstPage ??= this.read(this.query);
    return this.firstPage;
  }

  then<Fulfilled = Page<T, Meta>, Rejected = never>(
    onFulfilled?: ((value: Page<T, Meta>) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onRejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    return this.withResponse()
      .then(({ data }) => data)
      .then(onFulfilled, onRejected);
  }

  /** Every page, from the one the query asks for to the last, each read when asked for. */
  async *pages(): AsyncGenerator<WithResponse<Page<T, Meta>>, void, undefined> {
    let query: Query | null = this.query;
    let page = await this.withResponse();
    for (;;) {
      yield page;
      query = nextPageQuery(page.data.meta, query);
      if (!query) return;
      page = await this.read(query);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const { data: page } of this.pages()) yield* page.data;
  }

  private async read(query: Query): Promise<WithResponse<Page<T, Meta>>> {
    const { data: body, response } = await this.readPage(query);
    if (!body) throw new TypeError(`${response.url} answered ${response.status} without a page.`);
    return { data: body, response: responseInfoOf(response) };
  }
}
