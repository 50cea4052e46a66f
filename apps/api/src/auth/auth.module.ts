import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { AppConfig } from '@app/config';
import { UsersModule } from '../users/users.module';
import { AccountDirectory } from './account-directory.service';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { AuthenticationGuard } from './guards/authentication.guard';
import { JwtAuthGuard } from './guards/jwt-auth.guard';
import { JwtStrategy } from './strategies/jwt.strategy';
import { TokenRevocationService } from './token-revocation.service';
import { JWT_ALGORITHM, TokenService } from './token.service';

@Module({
  imports: [
    UsersModule,
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
    { provide: APP_GUARD, useClass: AuthenticationGuard },
  ],
  exports: [AuthService, TokenService, TokenRevocationService, AccountDirectory],
})
export class AuthModule {}
