import type { Scope, ScopeArea } from '@app/common';

const AREAS: Record<ScopeArea, string> = {
  resources: 'resources',
  organizations: 'organizations and their members',
  users: 'profile and the users you can see',
  webhooks: 'webhooks and their deliveries',
  events: 'event history',
};

/** A scope in words, for the consent page and the console's scope choices. */
export function describeScope(scope: Scope): string {
  const [access, area] = scope.split(':') as ['read' | 'write', ScopeArea];
  return access === 'read' ? `See your ${AREAS[area]}` : `Create, change and delete your ${AREAS[area]}`;
}
