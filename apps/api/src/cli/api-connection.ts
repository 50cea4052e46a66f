import { createRmsClient, Credentials, RmsApiError, RmsClient, RmsResponseError, unwrap } from '@rms/client';
import { CommandFailure } from './command-failure';

/** How a command reaches the running API, as any client would: its origin and an account's credential. */
export interface ApiConnectionOptions {
  apiUrl: string;
  apiKey?: string;
  email?: string;
  password?: string;
}

/** The API's refusal, or a network failure, as a message for the terminal. */
export function describeApiFailure(error: unknown, apiUrl: string, doing: string): Error {
  if (error instanceof RmsApiError) {
    const details = error.details.map((problem) => `\n  - ${problem.field}: ${problem.message}`).join('');
    return new CommandFailure(`The API refused to ${doing}: ${error.status} ${error.code}: ${error.message}${details}`);
  }
  if (error instanceof RmsResponseError) return new CommandFailure(`The API refused to ${doing}: ${error.status} ${error.message}`);
  if (error instanceof TypeError) {
    const cause = error.cause instanceof Error ? error.cause.message : error.message;
    return new CommandFailure(`Could not reach the API at ${apiUrl} to ${doing} (${cause}); is it running (npm start), and is --api-url right?`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The credential to act with: --api-key, else a login with --email and --password, else the
 * RMS_API_KEY variable (kept out of the shell history).
 */
async function credentialsFor(options: ApiConnectionOptions): Promise<Credentials> {
  if (options.apiKey !== undefined && options.email !== undefined) throw new CommandFailure('Give --api-key or --email with --password, not both.');
  if (options.apiKey !== undefined) return { apiKey: options.apiKey };
  if (options.email !== undefined) {
    if (options.password === undefined) throw new CommandFailure('--email needs --password.');
    const login = { email: options.email, password: options.password };
    try {
      const { data: tokens } = await unwrap(createRmsClient({ baseUrl: options.apiUrl }).api.POST('/v2/auth/login', { body: login }));
      return { tokens };
    } catch (error) {
      throw describeApiFailure(error, options.apiUrl, 'log in');
    }
  }
  const apiKey = process.env.RMS_API_KEY;
  if (apiKey) return { apiKey };
  throw new CommandFailure('Give --api-key (or set RMS_API_KEY), or --email and --password, of the account whose webhook this is.');
}

/** A client of the API at --api-url, acting as the account the options name. */
export async function connectToApi(options: ApiConnectionOptions): Promise<RmsClient> {
  if (!URL.canParse(options.apiUrl) || !/^https?:$/.test(new URL(options.apiUrl).protocol)) {
    throw new CommandFailure(`--api-url must be an http(s) URL, such as http://localhost:3000; got ${options.apiUrl}`);
  }
  return createRmsClient({ baseUrl: options.apiUrl, credentials: await credentialsFor(options) });
}
