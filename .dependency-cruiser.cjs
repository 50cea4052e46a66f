/**
 * Who may import whom, between the apps, the libraries and the bounded contexts of the API (the
 * folders of apps/api/src); README.md, "Who imports whom", draws it. `npm run lint` checks it with
 * scripts/check-dependencies.mjs, which adds the one rule dependency-cruiser cannot state
 * (no-context-cycle); scripts/check-dependencies.test.mjs shows each rule bites. That a library
 * never imports an app is eslint's rule (eslint.config.mjs), spec files included.
 */

/** The folders of apps/ that may import each repository: its context, and the tools that work on its data. */
const REPOSITORY_OWNERS = {
  'repositories/api-key.repository': ['api/src/api-keys'],
  'repositories/event.repository': ['api/src/events'],
  'repositories/event-retention.repository': ['worker'],
  'repositories/idempotency-outcome.repository': ['api/src/platform/idempotency'],
  'repositories/legacy-token.repository': ['api/src/legacy-tokens', 'api/src/cli'],
  'repositories/oauth-client.repository': ['api/src/oauth'],
  'repositories/oauth-grant.repository': ['api/src/oauth'],
  'repositories/organization.repository': ['api/src/organizations'],
  'repositories/refresh-token.repository': ['api/src/auth'],
  'repositories/resource.repository': ['api/src/resources'],
  // Accounts: profiles are the users context's, credentials and role checks auth's.
  'repositories/user.repository': ['api/src/users', 'api/src/auth', 'api/src/cli'],
  'repositories/webhook.repository': ['api/src/webhooks', 'worker'],
  'repositories/webhook-delivery.repository': ['api/src/webhooks', 'worker'],
  'redis/worker-heartbeat.repository': ['api/src/health', 'worker'],
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const repositoryPath = (repository) => `^libs/database/src/${escape(repository)}\\.ts$`;

const repositoryRules = Object.entries(REPOSITORY_OWNERS).map(([repository, owners]) => ({
  name: `${repository.split('/').pop().replace('.repository', '')}-repository-outside-its-owners`,
  comment: `Only ${owners.join(', ')} may import ${repository}; other contexts use an exported service of its owner.`,
  severity: 'error',
  from: { path: '^apps/', pathNot: owners.map((owner) => `^apps/${escape(owner)}/`) },
  to: { path: repositoryPath(repository) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment:
        'Folders depend one way, at any depth: auth/ importing rate-limit/ while rate-limit/ imports auth/ is a cycle even when no file is in one.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(apps|libs)/' },
      to: { circular: true },
    },
    {
      name: 'no-file-cycle',
      comment: 'Files depend one way, inside a folder too.',
      severity: 'error',
      from: { path: '^(apps|libs)/' },
      to: { circular: true },
    },
    {
      name: 'apps-import-each-other',
      comment: 'The API and the worker share only libraries.',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'platform-imports-a-context',
      comment: 'platform/ is what every context stands on; it knows none of them.',
      severity: 'error',
      from: { path: '^apps/api/src/platform/' },
      to: { path: '^apps/api/src/', pathNot: '^apps/api/src/platform/' },
    },
    {
      name: 'context-imports-the-composition-root',
      comment: 'The files at the top of apps/api/src assemble the app from the contexts, never the other way.',
      severity: 'error',
      from: { path: '^apps/api/src/[^/]+/' },
      to: { path: '^apps/api/src/[^/]+\\.ts$' },
    },
    {
      name: 'context-reaches-into-another',
      comment:
        "A context uses another through what it publishes: its root files (module, exported services, views, contracts), the services and views at the root of its parts, its dto/ and its decorators/. The rest of its subfolders (guards, strategies, pages) are its own.",
      severity: 'error',
      from: { path: '^apps/api/src/([^/]+)/' },
      to: {
        path: '^apps/api/src/[^/]+/.+/',
        // A part's services and views are published at its root only: one in a deeper folder is the part's own.
        pathNot: ['^apps/api/src/$1/', '^apps/api/src/platform/', '/dto/', '/decorators/', '^apps/api/src/[^/]+/[^/]+/[^/]+\\.(service|view)\\.ts$'],
      },
    },
    ...repositoryRules,
    {
      name: 'repository-without-owners',
      comment: 'Each repository is listed in REPOSITORY_OWNERS with the folders that may import it.',
      severity: 'error',
      from: { path: '^apps/' },
      to: {
        path: '^libs/database/src/.+\\.repository\\.ts$',
        pathNot: Object.keys(REPOSITORY_OWNERS).map(repositoryPath),
      },
    },
    {
      name: 'repository-imports-a-repository',
      comment: "A repository reaches another context's table only through the SQL that context publishes (*.sql.ts).",
      severity: 'error',
      from: { path: '^libs/database/src/.+\\.repository\\.ts$' },
      to: { path: '^libs/database/src/.+\\.repository\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Tests wire contexts together as they need; the rules are about the code that ships.
    exclude: { path: '\\.spec\\.ts$' },
    tsPreCompilationDeps: true,
    skipAnalysisNotInRules: true,
  },
};
