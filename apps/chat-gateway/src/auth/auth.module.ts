import { UserEntity } from '@echoloop/persistence';
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { apiKeyPolicy, ApiKeysModule } from '@echoloop/platform';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { AccountChanges, AccountChangesFromDatabase } from './account-changes';
import { ApiKeysController } from './api-keys.controller';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthRepository } from './auth.repository';
import { AuthService } from './auth.service';
import { LoginThrottle } from './login-throttle';
import { MeController } from './me.controller';
import { PersonalKeysController } from './personal-keys.controller';
import { SessionStates } from './session-states';
import { TokenService } from './token.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([UserEntity]),
    ApiKeysModule.forRoot({
      service: 'chat-gateway',
      policy: { inject: [GATEWAY_ENV], useFactory: (env: GatewayEnv) => apiKeyPolicy(env) },
    }),
  ],
  controllers: [AuthController, MeController, ApiKeysController, PersonalKeysController],
  providers: [
    AccountChanges,
    AccountChangesFromDatabase,
    AuthRepository,
    AuthService,
    LoginThrottle,
    SessionStates,
    TokenService,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [SessionStates, AccountChanges],
})
export class AuthModule {}
