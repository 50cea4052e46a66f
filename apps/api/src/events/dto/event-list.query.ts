import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** `GET /events` is cursor-paginated only: `cursor` from meta, `limit` 1-100. */
export class EventListQuery {
  @ApiPropertyOptional({ description: 'meta.cursor.next of the previous page.', maxLength: 4096 })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(4096, { message: 'must be at most 4096 characters' })
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1-100' })
  @Max(100, { message: 'must be 1-100' })
  limit?: number;
}
