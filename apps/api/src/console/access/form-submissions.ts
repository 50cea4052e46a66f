import { Inject, Injectable } from '@nestjs/common';
import { REDIS, RedisClient } from '@app/database';
import { submissionTokenOf } from './form-token';
import type { SignedInUser } from './signed-in-user';

/** How long a create form's token remembers where its first sending led: longer than anyone keeps a form open. */
const SUBMISSION_TTL_SECONDS = 24 * 60 * 60;

/** Claimed, and the record not made yet. */
const IN_FLIGHT = '';

/**
 * Create forms run once per form token, whatever the browser sends again (a reload, back and send,
 * a double click): the first sending claims the token in Redis, for the session, and records
 * where it led; any later one is sent there without creating anything.
 */
@Injectable()
export class FormSubmissions {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  /**
   * Runs `create` for the form's first sending and answers the page it leads to; a sending again
   * answers the same page, or `whileInFlight` when the first is still running. A create that
   * throws (a refusal shown on the form) gives the token back, so the form may be sent again.
   */
  async once(user: SignedInUser, form: unknown, whileInFlight: string, create: () => Promise<string>): Promise<string> {
    const key = `console:submission:${user.auth.credentialId}:${submissionTokenOf(form)}`;
    const claimed = await this.redis.set(key, IN_FLIGHT, 'EX', SUBMISSION_TTL_SECONDS, 'NX');
    if (claimed !== 'OK') return (await this.redis.get(key)) || whileInFlight;
    let location: string;
    try {
      location = await create();
    } catch (error) {
      await this.redis.del(key);
      throw error;
    }
    await this.redis.set(key, location, 'EX', SUBMISSION_TTL_SECONDS);
    return location;
  }
}
