import { ApiKeyEntity, type ApiKeyService, UserEntity } from '@echoloop/persistence';
import { type DynamicModule, type InjectionToken, Module, type Provider } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CLOCK, systemClock } from '../clock';
import { DEFAULT_API_KEY_POLICY, type ApiKeyPolicy } from './api-key-policy';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeysService } from './api-keys.service';
import { API_KEY_POLICY, API_KEY_SERVICE_NAME } from './api-keys.tokens';

export interface ApiKeysModuleOptions {
  /** This app: keys not scoped to it get a 403 here. */
  service: ApiKeyService;
  /** Only the app that mints keys needs it: a value, or a factory of injected configuration. */
  policy?: ApiKeyPolicy | { inject: InjectionToken[]; useFactory: (...deps: never[]) => ApiKeyPolicy };
}

/** ApiKeysService for an app (it needs PlatformModule's database connection). */
@Module({})
export class ApiKeysModule {
  static forRoot({ service, policy = DEFAULT_API_KEY_POLICY }: ApiKeysModuleOptions): DynamicModule {
    return {
      module: ApiKeysModule,
      imports: [TypeOrmModule.forFeature([ApiKeyEntity, UserEntity])],
      providers: [
        ApiKeyRepository,
        ApiKeysService,
        { provide: API_KEY_SERVICE_NAME, useValue: service },
        policyProvider(policy),
        { provide: CLOCK, useValue: systemClock },
      ],
      exports: [ApiKeysService],
    };
  }
}

function policyProvider(policy: NonNullable<ApiKeysModuleOptions['policy']>): Provider {
  return 'useFactory' in policy
    ? {
        provide: API_KEY_POLICY,
        inject: policy.inject,
        useFactory: policy.useFactory as (...deps: unknown[]) => ApiKeyPolicy,
      }
    : { provide: API_KEY_POLICY, useValue: policy };
}
