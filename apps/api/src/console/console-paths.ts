/** Where every console page lives, in one place for the controllers, the pages and their links. */
const CONSOLE_ROOT = '/console';

const segment = (value: string): string => encodeURIComponent(value);

export const consolePaths = {
  signIn: `${CONSOLE_ROOT}/sign-in`,
  signUp: `${CONSOLE_ROOT}/sign-up`,
  signOut: `${CONSOLE_ROOT}/sign-out`,
  assets: `${CONSOLE_ROOT}/assets`,
  apiKeys: `${CONSOLE_ROOT}/api-keys`,
  apiKeyCreated: (id: string): string => `${CONSOLE_ROOT}/api-keys/${segment(id)}/created`,
  apiKeyRevoke: (id: string): string => `${CONSOLE_ROOT}/api-keys/${segment(id)}/revoke`,
  apiKeyRoll: (id: string): string => `${CONSOLE_ROOT}/api-keys/${segment(id)}/roll`,
  apiKeyRolled: (id: string): string => `${CONSOLE_ROOT}/api-keys/${segment(id)}/rolled`,
  webhooks: `${CONSOLE_ROOT}/webhooks`,
  webhook: (id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(id)}`,
  webhookCreated: (id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(id)}/created`,
  webhookEnable: (id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(id)}/enable`,
  webhookTest: (id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(id)}/test`,
  webhookDelete: (id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(id)}/delete`,
  webhookPause: (id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(id)}/pause`,
  webhookResume: (id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(id)}/resume`,
  webhookRotate: (id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(id)}/rotate`,
  webhookRotated: (id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(id)}/rotated`,
  webhookRecover: (id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(id)}/recover`,
  delivery: (webhookId: string, id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(webhookId)}/deliveries/${segment(id)}`,
  deliveryRetry: (webhookId: string, id: string): string => `${CONSOLE_ROOT}/webhooks/${segment(webhookId)}/deliveries/${segment(id)}/retry`,
  events: `${CONSOLE_ROOT}/events`,
  event: (id: string): string => `${CONSOLE_ROOT}/events/${segment(id)}`,
  oauthClients: `${CONSOLE_ROOT}/oauth-clients`,
  oauthClientCreated: (id: string): string => `${CONSOLE_ROOT}/oauth-clients/${segment(id)}/created`,
  oauthClientDelete: (id: string): string => `${CONSOLE_ROOT}/oauth-clients/${segment(id)}/delete`,
  organizations: `${CONSOLE_ROOT}/organizations`,
  organization: (id: string): string => `${CONSOLE_ROOT}/organizations/${segment(id)}`,
};

/** The first page after sign-in. */
export const CONSOLE_HOME = consolePaths.apiKeys;

/** A path with one `notice` query parameter, which the page it leads to turns into a fixed message. */
export function withNotice(path: string, notice: string): string {
  return `${path}?${new URLSearchParams({ notice }).toString()}`;
}

/**
 * Where to go after signing in: a console path of this service, else the console's home. Only a
 * path is kept, so that the sign-in page cannot be made to send anyone elsewhere.
 */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/')) return CONSOLE_HOME;
  const base = 'http://console.invalid';
  if (!URL.canParse(value, base)) return CONSOLE_HOME;
  const url = new URL(value, base);
  const inConsole = url.pathname === CONSOLE_ROOT || url.pathname.startsWith(`${CONSOLE_ROOT}/`);
  if (url.origin !== base || !inConsole || url.pathname === consolePaths.signIn || url.pathname === consolePaths.signUp) return CONSOLE_HOME;
  return `${url.pathname}${url.search}`;
}
