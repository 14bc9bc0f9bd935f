import { ApiDoc, Public, RetryAfterException, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, HttpCode, Ip, Post, UnauthorizedException } from '@nestjs/common';
import { CurrentPrincipal } from './auth.decorators';
import { registeredResponse, signedInResponse } from './auth.responses';
import {
  loginSchema,
  logoutSchema,
  refreshSchema,
  registerSchema,
  type LoginInput,
  type LogoutInput,
  type RefreshInput,
  type RegisterInput,
} from './auth.schemas';
import { AuthService } from './auth.service';
import { LoginThrottle } from './login-throttle';
import type { Principal } from './principal';

const THROTTLED = 'Throttled per client address and per account and client address: 429 with `Retry-After`.';

@Controller('v1/auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly throttle: LoginThrottle,
  ) {}

  @Public()
  @Post('register')
  @ApiDoc({
    summary: 'Creates an account (role `user`) and signs it in',
    description: THROTTLED,
    response: registeredResponse,
  })
  register(@Ip() ip: string, @Body(new ZodValidationPipe(registerSchema)) input: RegisterInput) {
    this.attempt(ip, input.email);
    return this.auth.register(input);
  }

  @Public()
  @Post('login')
  @ApiDoc({
    summary: 'Signs in with email and password: a new session',
    description: `${THROTTLED} A disabled account is a 403 \`account_disabled\`.`,
    response: signedInResponse,
  })
  @HttpCode(200)
  async login(@Ip() ip: string, @Body(new ZodValidationPipe(loginSchema)) input: LoginInput) {
    this.attempt(ip, input.email);
    const tokens = await this.auth.login(input);
    if (tokens) return tokens;
    this.throttle.failed(input.email);
    throw new UnauthorizedException({
      error: { code: 'invalid_credentials', message: 'Email or password is wrong' },
    });
  }

  @Public()
  @Post('refresh')
  @ApiDoc({
    summary: 'Renews the session: a new access token and the next refresh token',
    description:
      'Each refresh token works once. Presenting a used one again ends its whole session (it was copied), ' +
      'and is a 401 `invalid_refresh_token`, as are ended sessions and disabled accounts; only a second tab ' +
      'refreshing with the same token within REFRESH_REUSE_GRACE_MS, before a newer one is used, gets its own.',
    response: signedInResponse,
  })
  @HttpCode(200)
  refresh(@Body(new ZodValidationPipe(refreshSchema)) input: RefreshInput) {
    return this.auth.refresh(input.refreshToken);
  }

  @Post('logout')
  @ApiDoc({
    summary: 'Ends this session, or with `everywhere` every session of the account',
    description: 'Access tokens of the ended sessions stop working at once, open sockets included.',
  })
  @HttpCode(204)
  async logout(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(logoutSchema)) input: LogoutInput,
  ): Promise<void> {
    await this.auth.logout(principal, input.everywhere);
  }

  private attempt(ip: string, email: string): void {
    const waitMs = this.throttle.attempt(ip, email);
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
