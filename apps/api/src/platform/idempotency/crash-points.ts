import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';

/** Where a keyed write may be made to crash: right after its COMMIT, or after its answer is recorded in PostgreSQL but before Redis has it. */
export type CrashPoint = NonNullable<AppConfig['IDEMPOTENCY_TEST_CRASH']>;

/**
 * The crash IDEMPOTENCY_TEST_CRASH asks for, which config allows in test runs only: the process
 * ends at once, as a SIGKILL ends it, with nothing flushed or answered.
 */
@Injectable()
export class CrashPoints {
  constructor(private readonly config: AppConfig) {}

  armed(point: CrashPoint): boolean {
    return this.config.IDEMPOTENCY_TEST_CRASH === point;
  }

  reach(point: CrashPoint): void {
    if (this.armed(point)) process.kill(process.pid, 'SIGKILL');
  }
}
