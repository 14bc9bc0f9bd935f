import { type DynamicModule, Global, Module } from '@nestjs/common';
import { GATEWAY_ENV, type GatewayEnv } from './env';

/** Makes the validated environment injectable everywhere in the gateway (`@Inject(GATEWAY_ENV)`). */
@Global()
@Module({})
export class GatewayConfigModule {
  static register(env: GatewayEnv): DynamicModule {
    return {
      module: GatewayConfigModule,
      providers: [{ provide: GATEWAY_ENV, useValue: env }],
      exports: [GATEWAY_ENV],
    };
  }
}
