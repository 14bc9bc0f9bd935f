import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Get, Param, Patch, Query, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CurrentPrincipal, Roles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { UserPrincipalGuard } from './user-principal.guard';
import { auditTrailResponse, userPageResponse, userResponse } from './users.responses';
import {
  listUsersQuerySchema,
  type ListUsersQuery,
  patchUserSchema,
  type PatchUserInput,
  userParamsSchema,
} from './users.schemas';
import { UsersService } from './users.service';

type UserParams = z.infer<typeof userParamsSchema>;

/** Account administration: signed-in admins only. */
@Controller('v1/users')
@Roles('admin')
@UseGuards(UserPrincipalGuard)
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiDoc({
    summary: 'Accounts, oldest first, filtered by email part, role and disabled',
    response: userPageResponse,
  })
  list(@Query(new ZodValidationPipe(listUsersQuerySchema)) query: ListUsersQuery) {
    return this.users.list(query);
  }

  @Get(':id')
  @ApiDoc({ summary: 'One account', response: userResponse })
  get(@Param(new ZodValidationPipe(userParamsSchema)) { id }: UserParams) {
    return this.users.get(id);
  }

  @Patch(':id')
  @ApiDoc({
    summary: 'Sets roles or disabled (audited); 409 last_admin or cannot_disable_self',
    response: userResponse,
  })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param(new ZodValidationPipe(userParamsSchema)) { id }: UserParams,
    @Body(new ZodValidationPipe(patchUserSchema)) patch: PatchUserInput,
  ) {
    return this.users.update(principal, id, patch);
  }

  @Get(':id/audit')
  @ApiDoc({ summary: "The account's audit trail, oldest first", response: auditTrailResponse })
  async audit(@Param(new ZodValidationPipe(userParamsSchema)) { id }: UserParams) {
    return { items: await this.users.auditTrail(id) };
  }
}
