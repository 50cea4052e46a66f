import { CreateAccounts1763700000000 } from './1763700000000-CreateAccounts';
import { CreateCredentials1763700500000 } from './1763700500000-CreateCredentials';
import { CreateResources1763710000000 } from './1763710000000-CreateResources';
import { CreateOrganizations1763720000000 } from './1763720000000-CreateOrganizations';
import { CreateWebhooks1763730000000 } from './1763730000000-CreateWebhooks';
import { CreateOAuth1763740000000 } from './1763740000000-CreateOAuth';
import { NotifyCommittedEvents1763760000000 } from './1763760000000-NotifyCommittedEvents';
import { IndexPendingDeliveries1763770000000 } from './1763770000000-IndexPendingDeliveries';
import { RevokedOAuthGrants1763780000000 } from './1763780000000-RevokedOAuthGrants';
import { AddEventTraceContext1763805000000 } from './1763805000000-AddEventTraceContext';
import { CreateIdempotencyOutcomes1763812000000 } from './1763812000000-CreateIdempotencyOutcomes';
import { KeyAndWebhookLifecycle1763820000000 } from './1763820000000-KeyAndWebhookLifecycle';

/** Every migration in order; a new migration is appended here. */
export const MIGRATIONS = [
  CreateAccounts1763700000000,
  CreateCredentials1763700500000,
  CreateResources1763710000000,
  CreateOrganizations1763720000000,
  CreateWebhooks1763730000000,
  CreateOAuth1763740000000,
  NotifyCommittedEvents1763760000000,
  IndexPendingDeliveries1763770000000,
  RevokedOAuthGrants1763780000000,
  AddEventTraceContext1763805000000,
  CreateIdempotencyOutcomes1763812000000,
  KeyAndWebhookLifecycle1763820000000,
];
