import { Public, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { loginSchema, registerSchema, type LoginInput, type RegisterInput } from './auth.schemas';
import { AuthService } from './auth.service';

@Public()
@Controller('v1/auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('register')
  register(@Body(new ZodValidationPipe(registerSchema)) input: RegisterInput) {
    return this.auth.register(input);
  }

  @Post('login')
  @HttpCode(200)
  login(@Body(new ZodValidationPipe(loginSchema)) input: LoginInput) {
    return this.auth.login(input);
  }
}
