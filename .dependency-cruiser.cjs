/**
 * Who may import whom, between the apps, the libraries and the bounded contexts of the API (the
 * folders of apps/api/src); README.md, "Who imports whom", draws it. `npm run lint` checks it with
 * scripts/check-dependencies.mjs, which adds the one rule dependency-cruiser cannot state
 * (no-context-cycle); scripts/check-dependencies.test.mjs shows each rule bites. That a library
 * never imports an app is eslint's rule (eslint.config.mjs), spec files included.
 */

/**
 * A context's repositories sit in its own folder (apps/api/src/<context>/<name>.repository.ts)
 * and are registered in its module: only that context imports them (repository-outside-its-context).
 * These few are used on purpose by other folders too, listed with them.
 */
const SHARED_REPOSITORIES = {
  // Accounts: credentials and roles are auth's; the users context's profiles and the CLI's account commands are the same rows.
  'auth/user.repository': ['users', 'cli'],
  'legacy-tokens/legacy-token.repository': ['cli'],
};

/** The repositories of libraries, shared by both apps, and the folders of apps/ that may import each. */
const LIBRARY_REPOSITORY_OWNERS = {
  'database/src/delivery-data/webhook.repository': ['api/src/webhooks', 'worker'],
  'database/src/delivery-data/webhook-delivery.repository': ['api/src/webhooks', 'worker'],
  'database/src/redis/worker-heartbeat.repository': ['api/src/health', 'worker'],
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ruleName = (repository) => repository.split('/').pop().replace('.repository', '');
const contextRepositoryPath = (repository) => `^apps/api/src/${escape(repository)}\\.ts$`;
const libraryRepositoryPath = (repository) => `^libs/${escape(repository)}\\.ts$`;

const sharedRepositoryRules = Object.entries(SHARED_REPOSITORIES).map(([repository, users]) => ({
  name: `${ruleName(repository)}-repository-outside-its-users`,
  comment: `Only ${repository.split('/')[0]}/ and ${users.join(', ')} may import ${repository}.`,
  severity: 'error',
  from: { path: '^apps/', pathNot: [repository.split('/')[0], ...users].map((folder) => `^apps/api/src/${escape(folder)}/`) },
  to: { path: contextRepositoryPath(repository) },
}));

const libraryRepositoryRules = Object.entries(LIBRARY_REPOSITORY_OWNERS).map(([repository, owners]) => ({
  name: `${ruleName(repository)}-repository-outside-its-owners`,
  comment: `Only ${owners.join(', ')} may import ${repository}; other contexts use an exported service of its owner.`,
  severity: 'error',
  from: { path: '^apps/', pathNot: owners.map((owner) => `^apps/${escape(owner)}/`) },
  to: { path: libraryRepositoryPath(repository) },
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
    {
      name: 'repository-outside-its-context',
      comment: "A context's repository is its own: another context uses an exported service of the owner.",
      severity: 'error',
      from: { path: '^apps/api/src/([^/]+)/' },
      to: {
        path: '^apps/api/src/[^/]+/.*\\.repository\\.ts$',
        pathNot: ['^apps/api/src/$1/', ...Object.keys(SHARED_REPOSITORIES).map(contextRepositoryPath)],
      },
    },
    ...sharedRepositoryRules,
    ...libraryRepositoryRules,
    {
      name: 'repository-without-owners',
      comment: "Each library's repository is listed in LIBRARY_REPOSITORY_OWNERS with the folders that may import it.",
      severity: 'error',
      from: { path: '^apps/' },
      to: {
        path: '^libs/.+\\.repository\\.ts$',
        pathNot: Object.keys(LIBRARY_REPOSITORY_OWNERS).map(libraryRepositoryPath),
      },
    },
    {
      name: 'repository-imports-a-repository',
      comment: "A repository reaches another context's table only through the SQL that context publishes (libs/database/src/published-sql).",
      severity: 'error',
      from: { path: '^(apps|libs)/.+\\.repository\\.ts$' },
      to: { path: '^(apps|libs)/.+\\.repository\\.ts$' },
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
