import type { AuthContext } from '@app/common';
import { EVENT_OUTBOX_SQL, type SqlStatement, type SqlStatements, WEBHOOK_DELIVERY_SQL, WEBHOOK_SQL } from '@app/database';
import { API_KEY_SQL } from '../../apps/api/src/api-keys/api-key.repository';
import { REFRESH_TOKEN_SQL } from '../../apps/api/src/auth/refresh-token.repository';
import { USER_SQL } from '../../apps/api/src/auth/user.repository';
import { EVENT_SQL } from '../../apps/api/src/events/event.repository';
import { LEGACY_TOKEN_SQL } from '../../apps/api/src/legacy-tokens/legacy-token.repository';
import { OAUTH_CLIENT_SQL } from '../../apps/api/src/oauth/oauth-client.repository';
import { OAUTH_GRANT_SQL } from '../../apps/api/src/oauth/oauth-grant.repository';
import { ORGANIZATION_SQL } from '../../apps/api/src/organizations/organization.repository';
import { IDEMPOTENCY_OUTCOME_SQL, OutcomeKey } from '../../apps/api/src/platform/idempotency/idempotency-outcome.repository';
import { TRANSACTION_STATUS_SQL } from '../../apps/api/src/platform/idempotency/transaction-statuses';
import { WRITE_LEDGER_SQL } from '../../apps/api/src/platform/idempotency/write-ledger';
import { toResourceListQuery } from '../../apps/api/src/resources/resource-list-query';
import { RESOURCE_SQL, ResourceScope } from '../../apps/api/src/resources/resource.repository';
import { EVENT_RETENTION_SQL } from '../../apps/worker/src/retention/event-retention.repository';

/**
 * Every statement of every repository, built from sample arguments: one example, or one per
 * form when the arguments change the SQL (an admin's read, a filtered list). The type asks for
 * each name of a repository's statements, so a new statement without a snapshot does not compile.
 */
type Examples<S extends SqlStatements> = { [Name in keyof S]: SqlStatement | Record<string, SqlStatement> };

interface SnapshotFile {
  /** The snapshot's path from the repository's root, beside the repository it lists. */
  path: string;
  repository: string;
  examples: Examples<SqlStatements>;
}

/** `statements` only gives the examples their type: one for each of its names, and no other. */
const snapshot = <S extends SqlStatements>(path: string, repository: string, _statements: S, examples: Examples<S>): SnapshotFile => ({
  path,
  repository,
  examples,
});

const AT = new Date('2026-01-01T00:00:00.000Z');
const MEMBER: AuthContext = { userId: 'usr_member', role: 'user', plan: 'free', credential: 'jwt', scopes: [], credentialId: 'jti_1' };
const ADMIN: AuthContext = { ...MEMBER, userId: 'usr_admin', role: 'admin' };

const ALONE: ResourceScope = { auth: MEMBER, roles: new Map() };
const IN_ORGANIZATIONS: ResourceScope = { auth: MEMBER, roles: new Map([['org_1', 'member'], ['org_2', 'owner']]) };
const AS_ADMIN: ResourceScope = { auth: ADMIN, roles: new Map() };
const OUTCOME_KEY: OutcomeKey = { accountId: 'usr_1', keyHash: 'hash', fingerprint: 'fingerprint', claimToken: 'claim', retentionSeconds: 86_400 };
const DEFAULT_LIST = toResourceListQuery({ limit: 20 }).spec;
const FILTERED_LIST = toResourceListQuery({ limit: 20, 'filter[type]': 'premium', 'filter[status]': 'active' }).spec;
const MIXED_LIST = toResourceListQuery({ limit: 20, sort: 'name,-created_at' }).spec;

export const SQL_SNAPSHOTS: SnapshotFile[] = [
  snapshot('apps/api/src/oauth/oauth-client.repository.sql', 'OAuthClientRepository', OAUTH_CLIENT_SQL, {
    insert: OAUTH_CLIENT_SQL.insert({
      id: 'oac_1',
      ownerId: 'usr_1',
      name: 'client',
      redirectUris: ['https://example.com/cb'],
      scopes: [],
      confidential: true,
      secretHash: 'hash',
    }),
    pageOwned: OAUTH_CLIENT_SQL.pageOwned('usr_1', 0, 20),
    countOwned: OAUTH_CLIENT_SQL.countOwned('usr_1'),
    findOwned: OAUTH_CLIENT_SQL.findOwned('usr_1', 'oac_1'),
    find: OAUTH_CLIENT_SQL.find('oac_1'),
    deleteOwned: OAUTH_CLIENT_SQL.deleteOwned('usr_1', 'oac_1'),
  }),
  snapshot('apps/api/src/oauth/oauth-grant.repository.sql', 'OAuthGrantRepository', OAUTH_GRANT_SQL, {
    insertCode: OAUTH_GRANT_SQL.insertCode({
      codeHash: 'hash',
      grantId: 'grt_1',
      clientId: 'oac_1',
      userId: 'usr_1',
      redirectUri: 'https://example.com/cb',
      scopes: [],
      codeChallenge: null,
      codeChallengeMethod: null,
      expiresAt: AT,
    }),
    findCode: OAUTH_GRANT_SQL.findCode('hash'),
    useCode: OAUTH_GRANT_SQL.useCode('hash'),
    insertTokens: OAUTH_GRANT_SQL.insertTokens([]),
    findToken: OAUTH_GRANT_SQL.findToken('hash'),
    revokeToken: OAUTH_GRANT_SQL.revokeToken('oat_1'),
    revokeGrant: OAUTH_GRANT_SQL.revokeGrant('grt_1'),
    useCodesOfGrant: OAUTH_GRANT_SQL.useCodesOfGrant('grt_1'),
  }),
  snapshot('apps/api/src/organizations/organization.repository.sql', 'OrganizationRepository', ORGANIZATION_SQL, {
    countVisible: { member: ORGANIZATION_SQL.countVisible(MEMBER), admin: ORGANIZATION_SQL.countVisible(ADMIN) },
    pageVisible: { member: ORGANIZATION_SQL.pageVisible(MEMBER, 0, 20), admin: ORGANIZATION_SQL.pageVisible(ADMIN, 0, 20) },
    findVisible: {
      member: ORGANIZATION_SQL.findVisible(MEMBER, 'org_1', false),
      admin: ORGANIZATION_SQL.findVisible(ADMIN, 'org_1', false),
      'member, locked': ORGANIZATION_SQL.findVisible(MEMBER, 'org_1', true),
    },
    insert: ORGANIZATION_SQL.insert({ id: 'org_1', name: 'Acme', slug: 'acme' }),
    insertOwner: ORGANIZATION_SQL.insertOwner('org_1', 'usr_1'),
    update: ORGANIZATION_SQL.update('org_1', { name: 'Acme' }),
    slugTaken: ORGANIZATION_SQL.slugTaken('acme', null),
    delete: ORGANIZATION_SQL.delete('org_1'),
    pageMembers: ORGANIZATION_SQL.pageMembers('org_1', 0, 20),
    findMember: ORGANIZATION_SQL.findMember('org_1', 'usr_1'),
    insertMember: ORGANIZATION_SQL.insertMember('org_1', 'usr_1', 'member'),
    deleteMember: ORGANIZATION_SQL.deleteMember('org_1', 'usr_1'),
    countOwners: ORGANIZATION_SQL.countOwners('org_1'),
    memberships: ORGANIZATION_SQL.memberships('usr_1'),
  }),
  snapshot('apps/api/src/auth/user.repository.sql', 'UserRepository', USER_SQL, {
    pageVisible: {
      admin: USER_SQL.pageVisible(ADMIN, {}, 0, 20),
      member: USER_SQL.pageVisible(MEMBER, {}, 0, 20),
      'member, by search and role': USER_SQL.pageVisible(MEMBER, { search: 'ann', role: 'admin' }, 0, 20),
    },
    findById: USER_SQL.findById('usr_1'),
    findByIdForUpdate: USER_SQL.findByIdForUpdate('usr_1'),
    findByEmailWithPassword: USER_SQL.findByEmailWithPassword('ann@example.com'),
    findByEmail: USER_SQL.findByEmail('ann@example.com'),
    takenFields: USER_SQL.takenFields('ann@example.com', 'ann'),
    insert: USER_SQL.insert({
      id: 'usr_1',
      email: 'ann@example.com',
      username: 'ann',
      passwordHash: 'hash',
      role: 'user',
      plan: 'free',
      firstName: null,
      lastName: null,
      avatarUrl: null,
    }),
    update: {
      'role and plan': USER_SQL.update('usr_1', { role: 'admin', plan: 'pro' }),
      profile: USER_SQL.update('usr_1', { firstName: 'Ann', lastName: null, avatarUrl: 'https://example.com/a.png' }),
    },
    findIdentities: USER_SQL.findIdentities(['usr_1', 'usr_2']),
    findAccount: USER_SQL.findAccount('usr_1'),
  }),
  snapshot('apps/api/src/auth/refresh-token.repository.sql', 'RefreshTokenRepository', REFRESH_TOKEN_SQL, {
    insert: REFRESH_TOKEN_SQL.insert({ id: 'rt_1', familyId: 'fam_1', userId: 'usr_1', expiresAt: AT }, AT),
    markRotated: REFRESH_TOKEN_SQL.markRotated({ id: 'rt_1', familyId: 'fam_1', userId: 'usr_1' }),
    findState: REFRESH_TOKEN_SQL.findState('rt_1'),
    revokeFamily: REFRESH_TOKEN_SQL.revokeFamily('fam_1'),
  }),
  snapshot('apps/api/src/api-keys/api-key.repository.sql', 'ApiKeyRepository', API_KEY_SQL, {
    insert: API_KEY_SQL.insert(
      { id: 'key_1', userId: 'usr_1', name: 'deploy', scopes: [], prefix: 'sk_test_abcd', secretHash: 'hash', expiresAt: null },
      AT,
    ),
    pageLive: API_KEY_SQL.pageLive('usr_1', 0, 20),
    countLive: API_KEY_SQL.countLive('usr_1'),
    lockOwned: API_KEY_SQL.lockOwned('usr_1', 'key_1'),
    setExpiry: API_KEY_SQL.setExpiry('key_1', AT),
    findLive: API_KEY_SQL.findLive('usr_1', 'key_1'),
    revoke: API_KEY_SQL.revoke('usr_1', 'key_1'),
    findBySecretHash: API_KEY_SQL.findBySecretHash('hash'),
    touch: API_KEY_SQL.touch('key_1'),
  }),
  snapshot('apps/api/src/resources/resource.repository.sql', 'ResourceRepository', RESOURCE_SQL, {
    findVisible: { member: RESOURCE_SQL.findVisible(MEMBER, 'res_1'), admin: RESOURCE_SQL.findVisible(ADMIN, 'res_1') },
    lockVisible: {
      member: RESOURCE_SQL.lockVisible(MEMBER, 'res_1', false),
      'member, deleted too': RESOURCE_SQL.lockVisible(MEMBER, 'res_1', true),
      admin: RESOURCE_SQL.lockVisible(ADMIN, 'res_1', false),
    },
    lockManyVisible: RESOURCE_SQL.lockManyVisible(MEMBER, ['res_1', 'res_2']),
    insert: RESOURCE_SQL.insert([]),
    updateContent: RESOURCE_SQL.updateContent([]),
    move: RESOURCE_SQL.move('res_1', 'org_1'),
    softDelete: RESOURCE_SQL.softDelete('res_1', AT.toISOString()),
    hardDelete: RESOURCE_SQL.hardDelete('res_1'),
    pageByOffset: {
      'member of no organization': RESOURCE_SQL.pageByOffset(ALONE, DEFAULT_LIST, 0, 20),
      'member of organizations, filtered': RESOURCE_SQL.pageByOffset(IN_ORGANIZATIONS, FILTERED_LIST, 40, 20),
      admin: RESOURCE_SQL.pageByOffset(AS_ADMIN, DEFAULT_LIST, 0, 20),
    },
    pageByKeyset: {
      'first page': RESOURCE_SQL.pageByKeyset(IN_ORGANIZATIONS, DEFAULT_LIST, { position: null, backward: false, limit: 20 }),
      'after a position': RESOURCE_SQL.pageByKeyset(IN_ORGANIZATIONS, DEFAULT_LIST, { position: [AT.toISOString(), 'res_1'], backward: false, limit: 20 }),
      'before a position, mixed directions': RESOURCE_SQL.pageByKeyset(ALONE, MIXED_LIST, {
        position: ['a', AT.toISOString(), 'res_1'],
        backward: true,
        limit: 20,
      }),
    },
  }),
  snapshot('apps/api/src/legacy-tokens/legacy-token.repository.sql', 'LegacyTokenRepository', LEGACY_TOKEN_SQL, {
    knownEmails: LEGACY_TOKEN_SQL.knownEmails(['ann@example.com']),
    importBatch: LEGACY_TOKEN_SQL.importBatch([{ tokenHash: 'hash', email: 'ann@example.com' }]),
    consume: LEGACY_TOKEN_SQL.consume('hash'),
    isUsed: LEGACY_TOKEN_SQL.isUsed('hash'),
  }),
  snapshot('apps/api/src/events/event.repository.sql', 'EventRepository', EVENT_SQL, {
    listVisible: {
      member: EVENT_SQL.listVisible({ userId: 'usr_1', isAdmin: false }, 21),
      'member, older than an event, of some kinds': EVENT_SQL.listVisible({ userId: 'usr_1', isAdmin: false }, 21, 'evt_1', [
        'resource.created',
        'resource.deleted',
      ]),
      admin: EVENT_SQL.listVisible({ userId: 'usr_admin', isAdmin: true }, 21),
      'admin, older than an event, of some kinds': EVENT_SQL.listVisible({ userId: 'usr_admin', isAdmin: true }, 21, 'evt_1', ['resource.created']),
    },
    findVisible: EVENT_SQL.findVisible({ userId: 'usr_1', isAdmin: false }, 'evt_1'),
  }),
  snapshot('apps/worker/src/retention/event-retention.repository.sql', 'EventRetentionRepository', EVENT_RETENTION_SQL, {
    deleteFinishedDeliveries: EVENT_RETENTION_SQL.deleteFinishedDeliveries(30, 500, AT.getTime()),
    deleteEvents: EVENT_RETENTION_SQL.deleteEvents(30, 500, AT.getTime()),
    deleteExpiredIdempotencyOutcomes: EVENT_RETENTION_SQL.deleteExpiredIdempotencyOutcomes(500),
  }),
  snapshot('apps/api/src/platform/idempotency/idempotency-outcome.repository.sql', 'IdempotencyOutcomeRepository', IDEMPOTENCY_OUTCOME_SQL, {
    recordOutcome: {
      'in the write\'s transaction': IDEMPOTENCY_OUTCOME_SQL.recordOutcome(OUTCOME_KEY, true),
      'before a write outside a transaction': IDEMPOTENCY_OUTCOME_SQL.recordOutcome(OUTCOME_KEY, false),
    },
    earlierOf: IDEMPOTENCY_OUTCOME_SQL.earlierOf(OUTCOME_KEY),
    recordedIn: IDEMPOTENCY_OUTCOME_SQL.recordedIn(OUTCOME_KEY, '7415'),
    recordAnswer: IDEMPOTENCY_OUTCOME_SQL.recordAnswer(OUTCOME_KEY, { status: 201, headers: {}, body: '{}' }),
    discard: IDEMPOTENCY_OUTCOME_SQL.discard(OUTCOME_KEY),
  }),
  snapshot('apps/api/src/platform/idempotency/write-ledger.sql', 'WriteLedgerSubscriber', WRITE_LEDGER_SQL, {
    transactionId: WRITE_LEDGER_SQL.transactionId(),
  }),
  snapshot('apps/api/src/platform/idempotency/transaction-statuses.sql', 'TransactionStatuses', TRANSACTION_STATUS_SQL, {
    statuses: TRANSACTION_STATUS_SQL.statuses(['1234']),
  }),
  snapshot('libs/database/src/event-outbox.sql', 'EventOutbox', EVENT_OUTBOX_SQL, {
    append: EVENT_OUTBOX_SQL.append([]),
    claimUnpublished: EVENT_OUTBOX_SQL.claimUnpublished(100),
    release: EVENT_OUTBOX_SQL.release(['evt_1']),
  }),
  snapshot('libs/database/src/delivery-data/webhook.repository.sql', 'WebhookRepository', WEBHOOK_SQL, {
    insert: WEBHOOK_SQL.insert({ id: 'wh_1', ownerId: 'usr_1', url: 'https://example.com/in', events: [], secret: 'whsec', description: null }),
    pageOwned: WEBHOOK_SQL.pageOwned('usr_1', 0, 20),
    countOwned: WEBHOOK_SQL.countOwned('usr_1'),
    findOwned: WEBHOOK_SQL.findOwned('usr_1', 'wh_1'),
    update: {
      'url and events': WEBHOOK_SQL.update('usr_1', 'wh_1', { url: 'https://example.com/in', events: [] }),
      'every field, enabled': WEBHOOK_SQL.update('usr_1', 'wh_1', {
        url: 'https://example.com/in',
        events: [],
        secret: 'whsec',
        description: null,
        status: 'enabled',
      }),
    },
    delete: WEBHOOK_SQL.delete('usr_1', 'wh_1'),
    disable: WEBHOOK_SQL.disable('wh_1', 'gave up'),
    rotateSecret: WEBHOOK_SQL.rotateSecret('usr_1', 'wh_1', 'whsec', AT),
    matchEvents: WEBHOOK_SQL.matchEvents(['evt_1']),
  }),
  snapshot('libs/database/src/delivery-data/webhook-delivery.repository.sql', 'WebhookDeliveryRepository', WEBHOOK_DELIVERY_SQL, {
    insertMissing: WEBHOOK_DELIVERY_SQL.insertMissing([]),
    insertTest: WEBHOOK_DELIVERY_SQL.insertTest({ webhookId: 'wh_1', eventId: 'evt_1', eventType: 'user.created', body: '{}' }, 'dlv_1', AT),
    page: {
      all: WEBHOOK_DELIVERY_SQL.page('wh_1', {}, 0, 20),
      'by status and kind': WEBHOOK_DELIVERY_SQL.page('wh_1', { status: 'failed', eventType: 'user.created' }, 0, 20),
    },
    count: {
      all: WEBHOOK_DELIVERY_SQL.count('wh_1', {}),
      'by status and kind': WEBHOOK_DELIVERY_SQL.count('wh_1', { status: 'failed', eventType: 'user.created' }),
    },
    find: WEBHOOK_DELIVERY_SQL.find('wh_1', 'dlv_1'),
    listForEvent: WEBHOOK_DELIVERY_SQL.listForEvent('usr_1', 'evt_1'),
    readPending: WEBHOOK_DELIVERY_SQL.readPending(['dlv_1']),
    findOverdue: WEBHOOK_DELIVERY_SQL.findOverdue(60_000, 100),
    recordAttempts: WEBHOOK_DELIVERY_SQL.recordAttempts([]),
    hold: WEBHOOK_DELIVERY_SQL.hold('dlv_1'),
    releaseHeld: WEBHOOK_DELIVERY_SQL.releaseHeld('wh_1'),
    recoverFailed: WEBHOOK_DELIVERY_SQL.recoverFailed('wh_1', AT, AT),
    health: WEBHOOK_DELIVERY_SQL.health('usr_1', ['wh_1']),
    reopen: WEBHOOK_DELIVERY_SQL.reopen('dlv_1'),
  }),
];

/** Leading indentation common to the statement's lines after the first, and trailing spaces, go. */
function tidy(text: string): string {
  const lines = text.trim().split('\n').map((line) => line.trimEnd());
  const indents = lines.slice(1).filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)?.[0].length ?? 0);
  const common = indents.length === 0 ? 0 : Math.min(...indents);
  return [lines[0], ...lines.slice(1).map((line) => line.slice(common))].join('\n');
}

/** The text of one snapshot file: each statement under its name (and form), as it is sent. */
export function renderSnapshot(file: SnapshotFile): string {
  const sections = Object.entries(file.examples).flatMap(([name, example]) => {
    const forms: Array<[string, SqlStatement]> =
      'text' in example && typeof example.text === 'string'
        ? [[name, example as SqlStatement]]
        : Object.entries(example as Record<string, SqlStatement>).map(([form, statement]) => [`${name} (${form})`, statement]);
    return forms.map(([title, statement]) => `-- ${title}\n${tidy(statement.text)};\n`);
  });
  const header = `-- Every statement ${file.repository} sends, by name. Written by \`npm run sql:snapshots\`;\n-- compared by test/sql/sql-snapshots.spec.ts, so a change of a query shows here in review.\n`;
  return [header, ...sections].join('\n');
}
