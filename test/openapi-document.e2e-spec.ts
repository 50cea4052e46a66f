import { relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { documentOfThisCheckout, documentText, DOCUMENT_PUBLIC_URL, OPENAPI_DOCUMENT_FILE, OPENAPI_WRITE_COMMAND, readCommittedDocument } from '../scripts/openapi-document';
import { createTestApp, PROJECT_ROOT, TestApp } from './support';

/** The JSON pointer of the first place where two JSON values differ, '' at the root. */
function firstDifference(served: unknown, committed: unknown, pointer = ''): string {
  if (typeof served !== 'object' || typeof committed !== 'object' || served === null || committed === null) return pointer;
  if (Array.isArray(served) !== Array.isArray(committed)) return pointer;
  const servedFields = served as Record<string, unknown>;
  const committedFields = committed as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(servedFields), ...Object.keys(committedFields)])];
  const differing = keys.find((key) => !isDeepStrictEqual(servedFields[key], committedFields[key]));
  if (differing === undefined) return pointer;
  const escaped = differing.replaceAll('~', '~0').replaceAll('/', '~1');
  return firstDifference(servedFields[differing], committedFields[differing], `${pointer}/${escaped}`);
}

/**
 * The committed openapi.json, which `npm run lint` lints and renders the SDK's types from, is
 * the document the API serves (with the public origin it was written with).
 */
describe('The committed OpenAPI document', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { PUBLIC_URL: DOCUMENT_PUBLIC_URL } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('is the served /openapi.json', async () => {
    const { body: served } = await t.http.get('/openapi.json').expect(200);
    const committed = readCommittedDocument();
    if (!isDeepStrictEqual(served, committed)) {
      throw new Error(
        `${relative(PROJECT_ROOT, OPENAPI_DOCUMENT_FILE)} is not what the API serves: run \`${OPENAPI_WRITE_COMMAND}\` and commit ` +
          `the result (first difference at "${firstDifference(served, committed)}").`,
      );
    }
  });

  it(`is what \`${OPENAPI_WRITE_COMMAND}\` writes, built from the modules without starting the API`, async () => {
    const { body: served } = await t.http.get('/openapi.json').expect(200);
    const written = JSON.parse(documentText(await documentOfThisCheckout())) as unknown;
    expect(firstDifference(served, written)).toBe('');
    expect(written).toEqual(served);
  });
});
