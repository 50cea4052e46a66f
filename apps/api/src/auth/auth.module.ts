import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { AppConfig } from '@app/config';
import { RedisPipelineBatchModule } from '../platform/redis/redis-pipeline-batch.module';
import { AccountDirectory } from './account-directory.service';
import { AccountsModule } from './accounts.module';
import { AuthContextFactory } from './auth-context.factory';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { CredentialRevocationService } from './credential-revocation.service';
import { CredentialRegistry } from './credential-registry';
import { AuthenticationGuard } from './guards/authentication.guard';
import { RevocationCheckGuard } from './guards/revocation-check.guard';
import { ScopeGuard } from './guards/scope.guard';
import { LoginAttemptLimiter } from './login-attempt.limiter';
import { RouteAccessReader } from './route-access';
import { ScopeDeclarationCheck } from './scope-declaration.check';
import { JwtStrategy } from './strategies/jwt.strategy';
import { RefreshTokenRepository } from './refresh-token.repository';
import { JWT_ALGORITHM, TokenService } from './token.service';

@Module({
  imports: [
    DiscoveryModule,
    AccountsModule,
    RedisPipelineBatchModule,
    JwtModule.registerAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        secret: config.jwtSecret,
        signOptions: { algorithm: JWT_ALGORITHM },
        verifyOptions: { algorithms: [JWT_ALGORITHM] },
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [
    RefreshTokenRepository,
    AuthService,
    TokenService,
    CredentialRevocationService,
    AccountDirectory,
    AuthContextFactory,
    CredentialRegistry,
    LoginAttemptLimiter,
    JwtStrategy,
    ScopeDeclarationCheck,
    // Registered as global guards, in their order, by the request pipeline.
    RouteAccessReader,
    AuthenticationGuard,
    ScopeGuard,
    RevocationCheckGuard,
  ],
  exports: [AuthService, TokenService, CredentialRevocationService, AccountDirectory, AuthContextFactory, AuthenticationGuard, ScopeGuard, RevocationCheckGuard],
})
export class AuthModule {}
