import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { before as beforeAll, describe, it } from 'node:test';
import { fileURLToPath, URL } from 'node:url';
import { expect } from 'expect';

/**
 * A check of the checker, run by `npm run lint` with Node's test runner (a tool check, not a
 * Jest suite): each import rule fails a tree that breaks it and passes one that keeps it.
 */
const CHECKER = fileURLToPath(new URL('./check-dependencies.mjs', import.meta.url));

/**
 * Runs `npm run lint`'s import check on `tree` (a small tree laid out like the repository: file
 * path → source), written to a directory of its own; resolves with its exit code and output.
 */
async function check(tree) {
  const root = await mkdtemp(join(tmpdir(), 'dependency-rules-'));
  try {
    for (const [path, source] of Object.entries(tree)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), source);
    }
    return await new Promise((done) =>
      execFile(process.execPath, [CHECKER], { cwd: root }, (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
      ),
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** A module exporting `name` and importing each of `imports` (relative paths). */
function source(name, ...imports) {
  const names = imports.map((_, index) => `imported${index}`);
  return [
    ...imports.map((path, index) => `import { value as ${names[index]} } from '${path}';`),
    `export const value = '${name}';`,
    `export const uses = [${names.join(', ')}];`,
    '',
  ].join('\n');
}

const MEMBERS_SQL = '../../../../libs/database/src/published-sql/organization-members.sql';

/** Every folder imports only what the rules allow. */
const ALLOWED = {
  'libs/database/src/published-sql/organization-members.sql.ts': source('memberships'),
  'apps/api/src/organizations/organization.repository.ts': source('organizations', MEMBERS_SQL),
  'apps/api/src/resources/resource.repository.ts': source('resources', MEMBERS_SQL),
  'apps/api/src/platform/pagination/page.ts': source('page'),
  'apps/api/src/organizations/organizations.service.ts': source('organizations', './organization.repository', '../platform/pagination/page'),
  // A repository other folders use on purpose (SHARED_REPOSITORIES), and a library's with its owners.
  'apps/api/src/auth/user.repository.ts': source('users'),
  'apps/api/src/users/user-identities.service.ts': source('identities', '../auth/user.repository'),
  'libs/database/src/delivery-data/webhook.repository.ts': source('webhooks'),
  'apps/worker/src/delivery/webhook-delivery.processor.ts': source('processor', '../../../../libs/database/src/delivery-data/webhook.repository'),
  'apps/api/src/organizations/membership.module.ts': source('membership', './organizations.service'),
  'apps/api/src/resources/resources.service.ts': source('resources', '../organizations/membership.module'),
  'apps/api/src/app.module.ts': source('app', './resources/resources.service', './organizations/organizations.service'),
  // What a context publishes: root files, the services and views at the root of its parts, dto/ and decorators/.
  'apps/api/src/auth/credential.ts': source('credential'),
  'apps/api/src/auth/decorators/login-only.decorator.ts': source('login only'),
  'apps/api/src/oauth/clients/oauth-clients.service.ts': source('oauth clients'),
  'apps/api/src/oauth/clients/oauth-client.view.ts': source('oauth client view'),
  'apps/api/src/oauth/clients/dto/create-oauth-client.dto.ts': source('create oauth client'),
  'apps/api/src/console/oauth-clients/oauth-client.pages.ts': source(
    'console',
    '../../auth/credential',
    '../../auth/decorators/login-only.decorator',
    '../../oauth/clients/oauth-clients.service',
    '../../oauth/clients/oauth-client.view',
    '../../oauth/clients/dto/create-oauth-client.dto',
  ),
};

describe('the import rules (.dependency-cruiser.cjs, scripts/check-dependencies.mjs)', () => {
  it('pass a tree that keeps them', async () => {
    const result = await check(ALLOWED);
    expect(result.output).not.toMatch(/error/);
    expect(result.code).toBe(0);
  });

  describe('on a tree that breaks each of them', () => {
    let result;

    beforeAll(async () => {
      result = await check({
        ...ALLOWED,
        // A ring of folders without a ring of files.
        'apps/api/src/auth/auth.module.ts': source('auth'),
        'apps/api/src/auth/auth.service.ts': source('auth', '../rate-limit/login-attempt.limiter'),
        'apps/api/src/rate-limit/login-attempt.limiter.ts': source('limiter'),
        'apps/api/src/rate-limit/rate-limit.module.ts': source('rate-limit', '../auth/auth.module'),
        // A ring that comes back through a subfolder.
        'apps/api/src/events/events.module.ts': source('events', '../webhooks/webhooks.service'),
        'apps/api/src/events/views/event.view.ts': source('event view'),
        'apps/api/src/webhooks/webhooks.service.ts': source('webhooks', '../events/views/event.view'),
        // Two files importing each other.
        'apps/api/src/users/users.service.ts': source('users', './user.view'),
        'apps/api/src/users/user.view.ts': source('user view', './users.service'),
        // Another context's repository, a shared one by a folder it is not shared with, and a library's repository nobody owns.
        'apps/api/src/session/session.service.ts': source(
          'session',
          '../organizations/organization.repository',
          '../auth/user.repository',
          '../../../../libs/database/src/delivery-data/invoice.repository',
        ),
        'libs/database/src/delivery-data/invoice.repository.ts': source('invoices'),
        'apps/api/src/events/event.repository.ts': source('events', '../organizations/organization.repository'),
        // The worker reaching into the API, platform into a context, a context into the composition root.
        'apps/worker/src/relay/outbox-relay.service.ts': source('relay', '../../../api/src/resources/resources.service'),
        'apps/api/src/platform/pagination/cursor.ts': source('cursor', '../../users/user.view'),
        'apps/api/src/oauth/oauth.module.ts': source('oauth', '../app.module'),
        // A context reaching into what another keeps to itself.
        'apps/api/src/auth/guards/scope.guard.ts': source('scope guard'),
        'apps/api/src/oauth/authorize/pages/page-layout.ts': source('page layout'),
        'apps/api/src/oauth/authorize/pages/consent.service.ts': source('consent'),
        'apps/api/src/console/sign-in/sign-in.page.ts': source(
          'sign-in',
          '../../oauth/authorize/pages/page-layout',
          '../../auth/guards/scope.guard',
          '../../oauth/authorize/pages/consent.service',
        ),
      });
    });

    it('fails', () => {
      expect(result.code).toBe(1);
    });

    it('finds folders that import each other, whichever files they go through', () => {
      expect(result.output).toContain('error no-folder-cycle: apps/api/src/auth → apps/api/src/rate-limit');
      expect(result.output).toContain('error no-context-cycle: apps/api/src/auth ⇄ apps/api/src/rate-limit');
      expect(result.output).toContain('error no-context-cycle: apps/api/src/events ⇄ apps/api/src/webhooks');
      expect(result.output).toContain('apps/api/src/webhooks/webhooks.service.ts → apps/api/src/events/views/event.view.ts');
    });

    it('finds files that import each other', () => {
      expect(result.output).toContain('error no-file-cycle: apps/api/src/users/user.view.ts → apps/api/src/users/users.service.ts');
    });

    it("finds a context importing another context's repository, a shared one outside its users, and a repository without owners", () => {
      expect(result.output).toContain(
        'error repository-outside-its-context: apps/api/src/session/session.service.ts → apps/api/src/organizations/organization.repository.ts',
      );
      expect(result.output).not.toContain('repository-outside-its-context: apps/api/src/organizations/');
      expect(result.output).toContain('error user-repository-outside-its-users: apps/api/src/session/session.service.ts → apps/api/src/auth/user.repository.ts');
      expect(result.output).not.toContain('outside-its-users: apps/api/src/users/');
      expect(result.output).not.toContain('outside-its-owners: apps/worker/');
      expect(result.output).toContain(
        'error repository-without-owners: apps/api/src/session/session.service.ts → libs/database/src/delivery-data/invoice.repository.ts',
      );
    });

    it('finds a repository importing another rather than the SQL its owner publishes', () => {
      expect(result.output).toContain(
        'error repository-imports-a-repository: apps/api/src/events/event.repository.ts → apps/api/src/organizations/organization.repository.ts',
      );
      expect(result.output).not.toContain('apps/api/src/resources/resource.repository.ts →');
    });

    it('finds a context importing what another keeps in its subfolders, and lets through what it publishes', () => {
      expect(result.output).toContain(
        'error context-reaches-into-another: apps/api/src/console/sign-in/sign-in.page.ts → apps/api/src/oauth/authorize/pages/page-layout.ts',
      );
      expect(result.output).toContain('error context-reaches-into-another: apps/api/src/console/sign-in/sign-in.page.ts → apps/api/src/auth/guards/scope.guard.ts');
      expect(result.output).toContain(
        'error context-reaches-into-another: apps/api/src/console/sign-in/sign-in.page.ts → apps/api/src/oauth/authorize/pages/consent.service.ts',
      );
      expect(result.output).not.toContain('context-reaches-into-another: apps/api/src/console/oauth-clients/');
    });

    it('finds the worker importing the API, platform importing a context, and a context importing the composition root', () => {
      expect(result.output).toContain('error apps-import-each-other: apps/worker/src/relay/outbox-relay.service.ts → apps/api/src/resources/resources.service.ts');
      expect(result.output).toContain('error platform-imports-a-context: apps/api/src/platform/pagination/cursor.ts → apps/api/src/users/user.view.ts');
      expect(result.output).toContain('error context-imports-the-composition-root: apps/api/src/oauth/oauth.module.ts → apps/api/src/app.module.ts');
    });
  });
});
