import type { AccountAuditEntity, UserEntity } from '@echoloop/persistence';
import { CLOCK, type Clock } from '@echoloop/platform';
import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { AccountChanges } from '../auth/account-changes';
import type { Principal } from '../auth/principal';
import { UsersRepository } from './users.repository';
import { canonicalRoles, type ListUsersQuery, type PatchUserInput } from './users.schemas';

export interface UserView {
  id: string;
  email: string;
  displayName: string;
  roles: string[];
  disabled: boolean;
  disabledAt: Date | null;
  simulated: boolean;
  createdAt: Date;
}

/** Never the password hash. */
export function userView(user: UserEntity): UserView {
  return {
    id: user.id,
    email: user.email,
    displayName: user.displayName,
    roles: canonicalRoles(user.roles),
    disabled: user.disabledAt !== null,
    disabledAt: user.disabledAt,
    simulated: user.simulated,
    createdAt: user.createdAt,
  };
}

const notFound = () => new NotFoundException({ error: { code: 'not_found', message: 'User not found' } });
const conflict = (code: string, message: string) => new ConflictException({ error: { code, message } });

const isActiveAdmin = (state: { roles: readonly string[]; disabled: boolean }) =>
  state.roles.includes('admin') && !state.disabled;

/** Admins manage accounts: roles and disabling, each change audited in its own transaction. */
@Injectable()
export class UsersService {
  constructor(
    private readonly repository: UsersRepository,
    private readonly changes: AccountChanges,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly logger: PinoLogger,
  ) {}

  async list(query: ListUsersQuery): Promise<{ items: UserView[]; nextOffset: number | null }> {
    const rows = await this.repository.list(query);
    const more = rows.length > query.limit;
    return {
      items: rows.slice(0, query.limit).map(userView),
      nextOffset: more ? query.offset + query.limit : null,
    };
  }

  async get(id: string): Promise<UserView> {
    const user = await this.repository.find(id);
    if (!user) throw notFound();
    return userView(user);
  }

  /** The trail outlives the account: a deleted account's changes still read. */
  async auditTrail(id: string): Promise<AccountAuditEntity[]> {
    const trail = await this.repository.auditTrail(id);
    if (trail.length === 0 && !(await this.repository.find(id))) throw notFound();
    return trail;
  }

  /**
   * Refuses to leave no active admin, and an admin disabling themselves. The account's sessions learn of the
   * change (AccountChanges) only once it is committed.
   */
  async update(actor: Principal, id: string, patch: PatchUserInput): Promise<UserView> {
    const now = this.clock();
    const { user, changed } = await this.repository.transaction(async (tx) => {
      const current = await tx.lockAccount(id);
      if (!current) throw notFound();
      const before = { roles: canonicalRoles(current.roles), disabled: current.disabledAt !== null };
      const after = {
        roles: patch.roles ? canonicalRoles(patch.roles) : before.roles,
        disabled: patch.disabled ?? before.disabled,
      };
      const rolesChanged = after.roles.join() !== before.roles.join();
      const disabledChanged = after.disabled !== before.disabled;
      if (!rolesChanged && !disabledChanged) return { user: current, changed: false };

      if (after.disabled && disabledChanged && id === actor.userId) {
        throw conflict('cannot_disable_self', 'An admin cannot disable their own account');
      }
      if (isActiveAdmin(before) && !isActiveAdmin(after) && (await tx.countActiveAdmins()) <= 1) {
        throw conflict('last_admin', 'This is the last active admin: make another admin first');
      }
      const disabledAt = after.disabled ? (current.disabledAt ?? now) : null;
      await tx.updateAccount(id, { roles: after.roles, disabledAt });
      if (after.disabled && disabledChanged) await tx.endSessions(id, now);
      await tx.audit({
        targetId: id,
        actor: 'user',
        actorId: actor.userId,
        action: 'updated',
        before: {
          ...(rolesChanged && { roles: before.roles }),
          ...(disabledChanged && { disabled: before.disabled }),
        },
        after: {
          ...(rolesChanged && { roles: after.roles }),
          ...(disabledChanged && { disabled: after.disabled }),
        },
        at: now,
      });
      return { user: { ...current, roles: after.roles, disabledAt }, changed: true };
    });
    if (changed) await this.publish(id);
    return userView(user);
  }

  /** The change is committed whatever a listener does: a failure is logged, not turned into an error. */
  private async publish(userId: string): Promise<void> {
    try {
      await this.changes.publish(userId);
    } catch (error) {
      this.logger.error({ userId, err: error }, 'account change listener failed');
    }
  }
}
