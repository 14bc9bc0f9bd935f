import { ApiDoc, Public, RetryAfterException, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, HttpCode, Inject, Ip, Post } from '@nestjs/common';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { TokenBuckets } from '../limits/token-bucket';
import { registeredResponse, signedInResponse } from './auth.responses';
import { loginSchema, registerSchema, type LoginInput, type RegisterInput } from './auth.schemas';
import { AuthService } from './auth.service';

@Public()
@Controller('v1/auth')
export class AuthController {
  /** Each attempt costs a 32 MiB scrypt hash: bound guessing and floods per client address and per account. */
  private readonly perAddress: TokenBuckets;
  private readonly perAccount = new TokenBuckets(10, 60_000);

  constructor(
    private readonly auth: AuthService,
    @Inject(GATEWAY_ENV) env: GatewayEnv,
  ) {
    this.perAddress = new TokenBuckets(env.AUTH_ATTEMPTS_PER_MINUTE, 60_000);
  }

  @Post('register')
  @ApiDoc({
    summary: 'Creates an account (role `user`) and signs it in',
    description: 'Throttled per client address and per account: 429 with `Retry-After`.',
    response: registeredResponse,
  })
  register(@Ip() ip: string, @Body(new ZodValidationPipe(registerSchema)) input: RegisterInput) {
    this.throttle(ip, input.email);
    return this.auth.register(input);
  }

  @Post('login')
  @ApiDoc({
    summary: 'Signs in with email and password',
    description: 'Throttled per client address and per account: 429 with `Retry-After`.',
    response: signedInResponse,
  })
  @HttpCode(200)
  login(@Ip() ip: string, @Body(new ZodValidationPipe(loginSchema)) input: LoginInput) {
    this.throttle(ip, input.email);
    return this.auth.login(input);
  }

  private throttle(ip: string, email: string): void {
    const waitMs = Math.max(this.perAddress.take(ip), this.perAccount.take(email));
    if (waitMs > 0) {
      throw new RetryAfterException(
        429,
        'rate_limited',
        'Too many attempts; try again later',
        Math.ceil(waitMs / 1_000),
      );
    }
  }
}
