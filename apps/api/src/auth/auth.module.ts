import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { AppConfig } from '@app/config';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { SessionStoreModule } from '../session/session-store.module';
import { UsersModule } from '../users/users.module';
import { AccountDirectory } from './account-directory.service';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { ApiKeyAuthGuard } from './guards/api-key-auth.guard';
import { AuthenticationGuard } from './guards/authentication.guard';
import { JwtAuthGuard } from './guards/jwt-auth.guard';
import { ScopeGuard } from './guards/scope.guard';
import { SessionAuthGuard } from './guards/session-auth.guard';
import { ScopeDeclarationCheck } from './scope-declaration.check';
import { ApiKeyStrategy } from './strategies/api-key.strategy';
import { JwtStrategy } from './strategies/jwt.strategy';
import { SessionStrategy } from './strategies/session.strategy';
import { TokenRevocationService } from './token-revocation.service';
import { JWT_ALGORITHM, TokenService } from './token.service';

@Module({
  imports: [
    UsersModule,
    ApiKeysModule,
    SessionStoreModule,
    DiscoveryModule,
    PassportModule.register({ property: 'auth', session: false }),
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
    AuthService,
    TokenService,
    TokenRevocationService,
    AccountDirectory,
    JwtStrategy,
    JwtAuthGuard,
    ApiKeyStrategy,
    ApiKeyAuthGuard,
    SessionStrategy,
    SessionAuthGuard,
    ScopeDeclarationCheck,
    // Registered as global guards, in their order, by the request pipeline.
    AuthenticationGuard,
    ScopeGuard,
  ],
  exports: [AuthService, TokenService, TokenRevocationService, AccountDirectory, AuthenticationGuard, ScopeGuard],
})
export class AuthModule {}
