import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateBy } from 'class-validator';
import { EVENT_KINDS, EventKind, PER_PAGE_DEFAULT, PER_PAGE_MAX, queryInteger } from '@app/common';

/** The kinds a `type` parameter names, comma-separated, each known; null when it names an unknown one. */
export function eventKindsOf(value: string): EventKind[] | null {
  const kinds = value.split(',').map((kind) => kind.trim());
  return kinds.every((kind): kind is EventKind => (EVENT_KINDS as readonly string[]).includes(kind)) ? [...new Set(kinds)] : null;
}

/** `GET /events` is cursor-paginated only: `cursor` from meta, `limit` 1-100; `type` narrows it to some kinds. */
export class EventListQuery {
  @ApiPropertyOptional({
    type: String,
    description: `One kind of event, or several comma-separated, among ${EVENT_KINDS.join(', ')}. A cursor is bound to the kinds it was made with.`,
    example: 'resource.created,resource.deleted',
  })
  @IsOptional()
  @ValidateBy(
    { name: 'isEventKindList', validator: { validate: (value: unknown) => typeof value === 'string' && eventKindsOf(value) !== null } },
    { message: `must be one event kind, or several comma-separated, among ${EVENT_KINDS.join(', ')}` },
  )
  type?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 4096,
    description: '`meta.cursor.next` of the previous page. Cursors are signed and bound to the caller: any other value is 400 `invalid_request`.',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(4096, { message: 'must be at most 4096 characters' })
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: PER_PAGE_MAX, default: PER_PAGE_DEFAULT, description: `Events per page, 1-${PER_PAGE_MAX}.` })
  @IsOptional()
  @Transform(({ value }) => queryInteger(value))
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: `must be 1-${PER_PAGE_MAX}` })
  @Max(PER_PAGE_MAX, { message: `must be 1-${PER_PAGE_MAX}` })
  limit?: number;
}
