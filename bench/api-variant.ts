/**
 * The API as production builds it, with parts of the request pipeline replaced, so that the
 * benchmark can price them: `full` (nothing replaced), `no-rate-limit` (the rate-limit guard
 * lets everything through) and `unauthenticated` (neither authentication nor rate limiting:
 * every request acts as BENCH_OWNER_ID with every scope).
 */
import 'reflect-metadata';
import { CanActivate, ExecutionContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ALL_SCOPES, AuthContext } from '@app/common';
import { API_APPLICATION_OPTIONS, apiRootModule, configureApiApp } from '../apps/api/src/app.setup';
import { EnvelopeExpressAdapter } from '../apps/api/src/platform/http/envelope-express-adapter';
import { AuthenticationGuard } from '../apps/api/src/auth/guards/authentication.guard';
import { RateLimitGuard } from '../apps/api/src/rate-limit/rate-limit.guard';

const allowAll: CanActivate = { canActivate: () => true };

/**
 * The caller every request acts as without authentication. Its credential kind is one with nothing
 * left to check once authenticated: a JWT would still have its revocation marks checked in Redis.
 */
const constantCaller: CanActivate = {
  canActivate(context: ExecutionContext): boolean {
    const auth: AuthContext = {
      userId: process.env.BENCH_OWNER_ID ?? '',
      role: 'user',
      plan: 'enterprise',
      credential: 'session',
      scopes: ALL_SCOPES,
      credentialId: 'bench',
    };
    context.switchToHttp().getRequest<{ auth?: AuthContext }>().auth = auth;
    return true;
  },
};

async function main(): Promise<void> {
  const mode = process.env.BENCH_MODE ?? 'full';
  let builder = Test.createTestingModule({ imports: [apiRootModule()] });
  if (mode === 'unauthenticated') {
    builder = builder.overrideProvider(AuthenticationGuard).useValue(constantCaller);
  }
  if (mode === 'unauthenticated' || mode === 'no-rate-limit') {
    builder = builder.overrideProvider(RateLimitGuard).useValue(allowAll);
  }
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(new EnvelopeExpressAdapter(), API_APPLICATION_OPTIONS);
  configureApiApp(app);
  await app.listen(Number(process.env.PORT ?? 3902), '127.0.0.1');
}

void main();
