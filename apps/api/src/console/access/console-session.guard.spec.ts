import { Controller, ExecutionContext, Get, Post } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { AuthContext } from '@app/common';
import { RouteTable } from '../../platform/routing/route-table';
import { BeforeSignIn, ConsoleSessionGuard, SignInRequired } from './console-session.guard';
import type { ConsoleSessions } from './console-sessions';
import type { ConsoleRequest, SignedInUser } from './signed-in-user';

@Controller('console')
class PagesController {
  @Get('sign-in')
  @BeforeSignIn()
  signIn(this: void): void {}

  @Get('api-keys')
  apiKeys(this: void): void {}

  @Post('api-keys')
  createApiKey(this: void): void {}
}

function contextOf(handler: object, req: Partial<ConsoleRequest>): ExecutionContext {
  return new ExecutionContextHost([req], PagesController, handler as (...args: unknown[]) => unknown);
}

describe('ConsoleSessionGuard', () => {
  const user: SignedInUser = { auth: { userId: 'usr_1' } as AuthContext, email: 'a@example.com', csrfToken: 'token-of-the-session' };

  function setup(signedIn: SignedInUser | null) {
    const reflector = new Reflector();
    const sessions = { signedIn: jest.fn().mockResolvedValue(signedIn) };
    const discovery = { getControllers: () => [{ metatype: PagesController }] } as unknown as DiscoveryService;
    const guard = new ConsoleSessionGuard(sessions as unknown as ConsoleSessions, reflector, new RouteTable(discovery, new MetadataScanner()));
    const reads = jest.spyOn(reflector, 'getAllAndOverride');
    guard.onModuleInit();
    return { guard, sessions, reads };
  }

  it('reads whether each route comes before sign-in at start-up, and no decorator through the Reflector on a request', async () => {
    const { guard, sessions, reads } = setup(null);
    expect(reads).toHaveBeenCalledTimes(3);
    expect(reads).toHaveBeenCalledWith(expect.anything(), [PagesController.prototype.signIn, PagesController]);

    reads.mockClear();
    await expect(guard.canActivate(contextOf(PagesController.prototype.signIn, { method: 'GET' }))).resolves.toBe(true);
    await expect(guard.accountOf(contextOf(PagesController.prototype.signIn, { method: 'GET' }))).resolves.toBeNull();
    await expect(guard.canActivate(contextOf(PagesController.prototype.apiKeys, { method: 'GET', originalUrl: '/console/api-keys' }))).rejects.toEqual(
      new SignInRequired('/console/api-keys'),
    );
    expect(sessions.signedIn).toHaveBeenCalledTimes(1);
    expect(reads).not.toHaveBeenCalled();
  });

  it('lets a signed-in user through, and a form only with the session token', async () => {
    const { guard } = setup(user);
    const page: Partial<ConsoleRequest> = { method: 'GET' };
    await expect(guard.canActivate(contextOf(PagesController.prototype.apiKeys, page))).resolves.toBe(true);
    expect(page.signedIn).toBe(user);
    await expect(guard.accountOf(contextOf(PagesController.prototype.apiKeys, page))).resolves.toBe(user.auth);
    const forged = { method: 'POST', body: { csrf_token: 'another' } };
    await expect(guard.canActivate(contextOf(PagesController.prototype.createApiKey, forged))).rejects.toMatchObject({ status: 403 });
    const sent = { method: 'POST', body: { csrf_token: user.csrfToken } };
    await expect(guard.canActivate(contextOf(PagesController.prototype.createApiKey, sent))).resolves.toBe(true);
  });
});
