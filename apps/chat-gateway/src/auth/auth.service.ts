import { UserEntity, PG_ERROR, pgErrorCode } from '@echoloop/persistence';
import { ConflictException, Injectable, UnauthorizedException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { LoginInput, RegisterInput } from './auth.schemas';
import { hashPassword, verifyPassword } from '@echoloop/platform';
import { TokenService } from './token.service';

/** A real hash to compare against when the email is unknown, so timing does not reveal which emails exist. */
const DECOY_HASH = hashPassword('decoy password never used');

@Injectable()
export class AuthService {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly tokens: TokenService,
  ) {}

  async register({
    email,
    password,
    displayName,
  }: RegisterInput): Promise<{ accessToken: string; userId: string }> {
    const passwordHash = await hashPassword(password);
    try {
      const user = await this.users.save(
        this.users.create({ email, passwordHash, displayName, roles: ['user'] }),
      );
      return { userId: user.id, accessToken: await this.tokens.issue(user.id, user.roles) };
    } catch (error) {
      if (pgErrorCode(error) === PG_ERROR.uniqueViolation) {
        throw new ConflictException({
          error: { code: 'email_taken', message: 'An account with this email exists' },
        });
      }
      throw error;
    }
  }

  async login({ email, password }: LoginInput): Promise<{ accessToken: string }> {
    const user = await this.users.findOneBy({ email });
    const ok = await verifyPassword(password, user?.passwordHash ?? (await DECOY_HASH));
    if (!user?.passwordHash || !ok) {
      throw new UnauthorizedException({
        error: { code: 'invalid_credentials', message: 'Email or password is wrong' },
      });
    }
    return { accessToken: await this.tokens.issue(user.id, user.roles) };
  }
}
