import { ERROR_STATUS } from '@app/common';
import { createRmsClient, ErrorCode, RmsApiError, RmsOAuthError, unwrap } from '@rms/client';
import { connectTierApi, createUser, newCredentials, ApiUnderTest, TestUser } from './support';

/** Whether two unions have the same members. */
type SameMembers<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/**
 * The SDK's ErrorCode (from the generated document) is exactly the service's set: the type
 * check (npm run typecheck) fails here when the document and libs/common part ways.
 */
const sdkKnowsEveryErrorCode: SameMembers<ErrorCode, keyof typeof ERROR_STATUS> = true;

async function apiError(promise: Promise<unknown>): Promise<RmsApiError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof RmsApiError)) throw new Error(`expected an RmsApiError, got ${String(error)}`);
  return error;
}

/** The SDK's typed errors from the real API (docs/api.md#errors). */
describe('SDK errors', () => {
  let t: ApiUnderTest;
  let user: TestUser;

  beforeAll(async () => {
    t = await connectTierApi();
    user = await createUser(t.http);
  });
  afterAll(async () => {
    await t.close();
  });

  it('knows every error code of the service', () => {
    expect(sdkKnowsEveryErrorCode).toBe(true);
  });

  it('carries code, details, status and the request id (echoed when the caller sends one)', async () => {
    const rms = createRmsClient({ baseUrl: t.url, credentials: { bearerToken: user.accessToken } });
    const error = await apiError(
      rms.api.POST('/v2/resources', {
        body: { name: '', description: 'd'.repeat(501) },
        headers: { 'X-Request-ID': 'sdk-errors-1' },
      }),
    );
    expect(error).toMatchObject({ name: 'RmsApiError', status: 400, code: 'validation_error', requestId: 'sdk-errors-1' });
    expect(error.details.map((problem) => problem.field).sort()).toEqual(['description', 'name']);
  });

  it('names not found, conflict and missing credentials by their codes', async () => {
    const rms = createRmsClient({ baseUrl: t.url, credentials: { bearerToken: user.accessToken } });
    const missing = await apiError(rms.api.GET('/v2/resources/{id}', { params: { path: { id: 'res_00000000000000000000000000' } } }));
    expect(missing).toMatchObject({ status: 404, code: 'resource_not_found', requestId: expect.stringMatching(/^req_/) });

    const anonymous = createRmsClient({ baseUrl: t.url });
    const taken = await apiError(anonymous.api.POST('/v2/auth/register', { body: { ...newCredentials(), email: user.email } }));
    expect(taken).toMatchObject({ status: 409, code: 'conflict' });
    expect(await apiError(anonymous.api.GET('/v2/users/me'))).toMatchObject({ status: 401, code: 'authentication_required' });
  });

  it("throws the token endpoint's RFC 6749 error for a wrong client secret", async () => {
    const owner = createRmsClient({ baseUrl: t.url, credentials: { bearerToken: user.accessToken } });
    const { data: client } = await unwrap(
      owner.api.POST('/v2/oauth-clients', {
        body: { name: 'sdk errors', redirect_uris: ['https://app.example.com/callback'], scopes: ['read:resources'] },
      }),
    );
    const service = createRmsClient({ baseUrl: t.url, credentials: { clientCredentials: { clientId: client.id, clientSecret: 'ocs_wrong' } } });
    const error = await service.api.GET('/v2/resources').then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(RmsOAuthError);
    // 400 or 401: RFC 6749 5.2 leaves it to the server when the secret came in the body.
    expect(error).toMatchObject({ status: expect.any(Number), error: 'invalid_client', errorDescription: expect.any(String) });
  });
});
