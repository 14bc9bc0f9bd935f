import { ApiKeyEntity, UserEntity } from '@echoloop/persistence';
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountChanges } from './account-changes';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { MeController } from './me.controller';
import { TokenService } from './token.service';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, ApiKeyEntity])],
  controllers: [AuthController, MeController, ApiKeysController],
  providers: [
    AccountChanges,
    AuthService,
    TokenService,
    ApiKeysService,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [TokenService, AccountChanges],
})
export class AuthModule {}
