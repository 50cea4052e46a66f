import { Controller, ExecutionContext } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { ALL_SCOPES, AuthContext, CredentialKind, InsufficientPermissionsError, Scope, SCOPE_AREAS } from '@app/common';
import { Public } from '../../platform/decorators/public.decorator';
import { ScopeArea } from '../../platform/decorators/scope.decorator';
import type { CredentialDescriptor, CredentialStrategy } from '../credential';
import { CredentialRegistry } from '../credential-registry';
import { UserLoginOnly } from '../decorators/user-login-only.decorator';
import { RouteAccessReader } from '../route-access';
import type { RouteTable } from '../../platform/routing/route-table';
import { requiredScope, ScopeGuard } from './scope.guard';

type Handler = () => void;

function context(controller: new () => object, handler: Handler, method: string, auth?: AuthContext): ExecutionContext {
  return new ExecutionContextHost([{ method, auth }], controller, handler);
}

function caller(credential: CredentialKind, scopes: readonly Scope[]): AuthContext {
  return { userId: 'usr_x', role: 'user', plan: 'free', credential, scopes, credentialId: 'x' };
}

/** One controller per area, declared at class level, as the real controllers do. */
function areaController(area: (typeof SCOPE_AREAS)[number]): new () => { handle: Handler } {
  @ScopeArea(area)
  @Controller(area)
  class AreaController {
    handle(): void {}
  }
  return AreaController;
}

/** The four credentials as the guard reads them: a label, and for the user's own logins how to name them. */
function credentials(): CredentialRegistry {
  const registry = new CredentialRegistry({} as DiscoveryService);
  const described: Array<[CredentialKind, string, string?]> = [
    ['jwt', 'access token', 'a JWT login'],
    ['api_key', 'API key'],
    ['session', 'session', 'a session login'],
    ['oauth', 'OAuth token'],
  ];
  for (const [kind, label, userLoginAs] of described) {
    registry.register({ credential: { kind, label, userLoginAs } as CredentialDescriptor } as CredentialStrategy);
  }
  return registry;
}

/** No route listed at start-up: each test's routes have their access rules read on their first request. */
const ROUTES_SEEN_ON_THEIR_FIRST_REQUEST = { routes: () => [] } as unknown as RouteTable;

describe('ScopeGuard (docs/api.md#scopes)', () => {
  const guard = new ScopeGuard(new RouteAccessReader(new Reflector(), ROUTES_SEEN_ON_THEIR_FIRST_REQUEST), credentials());

  describe.each(SCOPE_AREAS)('area %s', (area) => {
    const controller = areaController(area);
    const handler = controller.prototype.handle;

    it.each(['GET', 'HEAD'])('%s needs read:%s and nothing else', (method) => {
      expect(guard.canActivate(context(controller, handler, method, caller('api_key', [`read:${area}`])))).toBe(true);
      expect(() => guard.canActivate(context(controller, handler, method, caller('api_key', [`write:${area}`])))).toThrow(
        `This API key lacks the scope read:${area}`,
      );
    });

    it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('%s needs write:%s; read does not do', (method) => {
      expect(guard.canActivate(context(controller, handler, method, caller('api_key', [`write:${area}`])))).toBe(true);
      expect(() => guard.canActivate(context(controller, handler, method, caller('oauth', [`read:${area}`])))).toThrow(
        InsufficientPermissionsError,
      );
    });

    it('refuses the scopes of every other area', () => {
      const others = ALL_SCOPES.filter((scope) => !scope.endsWith(`:${area}`));
      for (const method of ['GET', 'POST']) {
        expect(() => guard.canActivate(context(controller, handler, method, caller('api_key', others)))).toThrow(
          `lacks the scope ${requiredScope(method, area)}`,
        );
      }
    });

    it.each(['jwt', 'session'] as const)('lets a %s login do everything', (credential) => {
      for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
        expect(guard.canActivate(context(controller, handler, method, caller(credential, ALL_SCOPES)))).toBe(true);
      }
    });
  });

  @ScopeArea('users')
  @Controller('mixed')
  class MixedController {
    @ScopeArea(null)
    anyCredential(this: void): void {}

    @Public()
    open(this: void): void {}

    @UserLoginOnly()
    loginOnly(this: void): void {}
  }

  @Controller('bare')
  class BareController {
    bare(this: void): void {}
  }

  it('lets any credential call a route declared @ScopeArea(null), even one without scopes', () => {
    const auth = caller('api_key', []);
    expect(guard.canActivate(context(MixedController, MixedController.prototype.anyCredential, 'POST', auth))).toBe(true);
  });

  it('lets public routes through without a caller', () => {
    expect(guard.canActivate(context(MixedController, MixedController.prototype.open, 'POST'))).toBe(true);
  });

  it('refuses API keys and OAuth tokens on @UserLoginOnly routes whatever their scopes, naming the logins that may', () => {
    for (const [credential, label] of [['api_key', 'API key'], ['oauth', 'OAuth token']] as const) {
      expect(() =>
        guard.canActivate(context(MixedController, MixedController.prototype.loginOnly, 'GET', caller(credential, ALL_SCOPES))),
      ).toThrow(new InsufficientPermissionsError(`An ${label} cannot call this endpoint: use a JWT login or a session login.`));
    }
    for (const credential of ['jwt', 'session'] as const) {
      expect(guard.canActivate(context(MixedController, MixedController.prototype.loginOnly, 'GET', caller(credential, ALL_SCOPES)))).toBe(true);
    }
  });

  it('fails closed on a route that declares no area', () => {
    expect(() => guard.canActivate(context(BareController, BareController.prototype.bare, 'GET', caller('jwt', ALL_SCOPES)))).toThrow(
      'declares no scope area',
    );
  });
});
