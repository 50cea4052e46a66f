import { ApiProperty } from '@nestjs/swagger';
import type { OffsetMeta } from '@app/common';

/** Paths (beginning `/v2/`) that keep the query's filters, sort and fields; `prev`/`next` are null at the ends. */
export class OffsetPageLinksView {
  @ApiProperty({ example: '/v2/users?page=1&per_page=20' })
  first: string;

  @ApiProperty({ type: String, nullable: true, example: null })
  prev: string | null;

  @ApiProperty({ type: String, nullable: true, example: '/v2/users?page=2&per_page=20' })
  next: string | null;

  @ApiProperty({ example: '/v2/users?page=3&per_page=20' })
  last: string;
}

/** `meta` of an offset page (docs/api.md#offset-pagination). */
export class OffsetPageMetaView implements OffsetMeta {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  page: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100, example: 20 })
  per_page: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 42, description: 'Records in every page together.' })
  total: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 3, description: 'At least 1, also when there are no records.' })
  total_pages: number;

  @ApiProperty({ type: OffsetPageLinksView })
  links: OffsetPageLinksView;
}

export class PageCursorView {
  @ApiProperty({ type: String, nullable: true, description: 'Send as `cursor` for the page after this one; null when there is none.' })
  next: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Send as `cursor` for the page before this one; null when there is none.' })
  prev: string | null;

  @ApiProperty({ description: 'Whether there are more records in the direction this page was read. Read until it is false to get everything.' })
  has_more: boolean;
}

/** `meta` of a cursor page (docs/api.md#cursor-pagination): cursors are opaque, signed and bound to the filters and sort. */
export class CursorPageMetaView {
  @ApiProperty({ type: PageCursorView })
  cursor: PageCursorView;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100, example: 20 })
  limit: number;
}

/** `meta` of a bulk answer (docs/api.md#bulk). */
export class BulkResultMetaView {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100, example: 2, description: 'Records in `data`.' })
  count: number;
}
