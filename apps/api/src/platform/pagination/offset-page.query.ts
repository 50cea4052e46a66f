import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { PAGE_MAX, PER_PAGE_DEFAULT, PER_PAGE_MAX, queryInteger } from '@app/common';

/** `page` and `per_page` of an offset-paginated list (docs/api.md#offset-pagination); lists extend it with filters. */
export class OffsetPageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: PAGE_MAX, default: 1, description: 'The page, from 1; one past the end is empty.' })
  @IsOptional()
  @Transform(({ value }) => queryInteger(value))
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: `must be 1-${PAGE_MAX}` })
  @Max(PAGE_MAX, { message: `must be 1-${PAGE_MAX}` })
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: PER_PAGE_MAX, default: PER_PAGE_DEFAULT, description: `Records per page, 1-${PER_PAGE_MAX}.` })
  @IsOptional()
  @Transform(({ value }) => queryInteger(value))
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: `must be 1-${PER_PAGE_MAX}` })
  @Max(PER_PAGE_MAX, { message: `must be 1-${PER_PAGE_MAX}` })
  per_page?: number;
}
