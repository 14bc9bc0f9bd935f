import { UserEntity } from '@echoloop/persistence';
import { Controller, Delete, Get, HttpCode, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { CurrentPrincipal } from './auth.decorators';
import { AuthService } from './auth.service';
import type { Principal } from './principal';

@Controller('v1/me')
export class MeController {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly auth: AuthService,
  ) {}

  @Get()
  async me(@CurrentPrincipal() principal: Principal) {
    const user = await this.users.findOneBy({ id: principal.userId });
    if (!user)
      throw new NotFoundException({ error: { code: 'not_found', message: 'Account no longer exists' } });
    return {
      id: user.id,
      email: user.email,
      displayName: user.displayName,
      roles: user.roles,
      createdAt: user.createdAt,
    };
  }

  /** Erasure: the account and, by cascade, its sessions and every conversation and message the user produced. */
  @Delete()
  @HttpCode(204)
  erase(@CurrentPrincipal() principal: Principal): Promise<void> {
    return this.auth.erase(principal);
  }
}
