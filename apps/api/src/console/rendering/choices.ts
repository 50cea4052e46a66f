import { ALL_SCOPES, EVENT_KINDS } from '@app/common';
import { describeScope } from '../../auth/scope-descriptions';
import type { Choice } from './forms';

/** Every scope, named as the consent page names it. */
export const SCOPE_CHOICES: readonly Choice[] = ALL_SCOPES.map((scope) => ({ value: scope, label: `${scope} — ${describeScope(scope)}` }));

export const EVENT_KIND_CHOICES: readonly Choice[] = EVENT_KINDS.map((kind) => ({ value: kind, label: kind }));
