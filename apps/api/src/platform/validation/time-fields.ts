import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min, ValidateBy } from 'class-validator';

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** The instant an RFC 3339 date-time names, or null when it is not one (a 31st of February included). */
function parseRfc3339(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const match = RFC_3339.exec(value);
  if (!match) return null;
  const instant = new Date(value);
  if (Number.isNaN(instant.getTime())) return null;
  const [, year, month, day] = match;
  // Date rolls 2026-02-31 over to March; the calendar day must exist as written.
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return calendar.getUTCMonth() === Number(month) - 1 && calendar.getUTCDate() === Number(day) ? instant : null;
}

/** How far from now an instant may be, in milliseconds (negative: in the past). */
export interface InstantWindow {
  earliestMs: number;
  latestMs: number;
  /** Says the window in words, for the message: "in the future, at most two years ahead". */
  wording: string;
}

/**
 * An RFC 3339 date-time within a window around the time of the request (optional, and then null
 * means not given, unless `required`); outside it, or malformed, a `validation_error` naming the
 * field and the window.
 */
export function InstantField(window: InstantWindow, doc: { description: string; example: string }, required = false): PropertyDecorator {
  const schema = { type: String, format: 'date-time', ...doc };
  return applyDecorators(
    required ? ApiProperty(schema) : ApiPropertyOptional({ ...schema, nullable: true }),
    ...(required ? [] : [IsOptional()]),
    ValidateBy(
      {
        name: 'isInstantInWindow',
        validator: {
          validate: (value: unknown) => {
            const instant = parseRfc3339(value);
            if (instant === null) return false;
            const fromNow = instant.getTime() - Date.now();
            return fromNow >= window.earliestMs && fromNow <= window.latestMs;
          },
        },
      },
      { message: `must be an RFC 3339 date-time (such as 2026-01-31T09:30:00Z) ${window.wording}` },
    ),
  );
}

/** The longest overlap a roll or a rotation allows: seven days. */
const MAX_OVERLAP_SECONDS = 604_800;
/** The overlap when none is asked for: a day. */
export const DEFAULT_OVERLAP_SECONDS = 86_400;

/** `expires_in`: seconds the credential being replaced keeps working, 0 (at once) to seven days. */
export function OverlapSecondsField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 0,
      maximum: MAX_OVERLAP_SECONDS,
      default: DEFAULT_OVERLAP_SECONDS,
      description,
      example: 3600,
    }),
    IsOptional(),
    IsInt({ message: `must be an integer from 0 to ${MAX_OVERLAP_SECONDS}` }),
    Min(0, { message: `must be an integer from 0 to ${MAX_OVERLAP_SECONDS}` }),
    Max(MAX_OVERLAP_SECONDS, { message: `must be an integer from 0 to ${MAX_OVERLAP_SECONDS}` }),
  );
}
