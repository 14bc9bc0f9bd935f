import type { Role } from '@echoloop/persistence';
import { SetMetadata } from '@nestjs/common';

export const REQUIRED_ROLES = 'auth:roles';

/** Requires at least one of these roles (admin users pass every role check; API keys never hold admin). */
export const Roles = (...roles: Role[]) => SetMetadata(REQUIRED_ROLES, roles);
