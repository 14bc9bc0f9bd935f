import { AccountAuditEntity, type Role, UserEntity } from '@echoloop/persistence';
import {
  type AccountAuditInput,
  countActiveAdmins,
  ensureBootstrapAdmin,
  lockAdminAccounts,
  notifyAccountChanged,
  writeAccountAudit,
} from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { ListUsersQuery } from './users.schemas';

/** What a change to an account may do inside its transaction. */
export interface AccountsTransaction {
  /** The account, locked until the transaction ends; null when there is none. */
  lockAccount(id: string): Promise<UserEntity | null>;
  countActiveAdmins(): Promise<number>;
  updateAccount(id: string, changes: { roles: Role[]; disabledAt: Date | null }): Promise<void>;
  /** Ends every session of the account: enabling it again does not bring old tokens back. */
  endSessions(id: string, at: Date): Promise<void>;
  audit(entry: AccountAuditInput): Promise<void>;
}

@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Oldest first, so offsets stay stable while people register. One more row than asked tells if more follow. */
  list({ email, role, disabled, limit, offset }: ListUsersQuery): Promise<UserEntity[]> {
    const query = this.db
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .orderBy('u.createdAt', 'ASC')
      .addOrderBy('u.id', 'ASC')
      .limit(limit + 1)
      .offset(offset);
    if (email) {
      query.andWhere(`u.email LIKE :pattern ESCAPE '\\'`, {
        pattern: `%${escapeLike(email.toLowerCase())}%`,
      });
    }
    if (role) query.andWhere(':role = ANY(u.roles)', { role });
    if (disabled !== undefined) query.andWhere(`u.disabledAt IS ${disabled ? 'NOT ' : ''}NULL`);
    return query.getMany();
  }

  /** The first admin of a fresh install (see ensureBootstrapAdmin). */
  ensureBootstrapAdmin(email: string, password: string): ReturnType<typeof ensureBootstrapAdmin> {
    return ensureBootstrapAdmin(this.db, { email, password });
  }

  find(id: string): Promise<UserEntity | null> {
    return this.db.getRepository(UserEntity).findOneBy({ id });
  }

  auditTrail(targetId: string): Promise<AccountAuditEntity[]> {
    return this.db.getRepository(AccountAuditEntity).find({ where: { targetId }, order: { id: 'ASC' } });
  }

  /** Runs under the admin-accounts lock, so the last-admin rule holds against concurrent changes. */
  transaction<T>(work: (tx: AccountsTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction(async (manager) => {
      await lockAdminAccounts(manager);
      return work(accountsTransaction(manager));
    });
  }
}

function accountsTransaction(manager: EntityManager): AccountsTransaction {
  const users = manager.getRepository(UserEntity);
  return {
    lockAccount: (id) =>
      users.createQueryBuilder('u').setLock('pessimistic_write').where('u.id = :id', { id }).getOne(),
    countActiveAdmins: () => countActiveAdmins(manager),
    updateAccount: async (id, changes) => {
      await users.update({ id }, changes);
      await notifyAccountChanged(manager, id);
    },
    endSessions: async (id, at) => {
      await manager.query(
        `UPDATE sessions SET revoked_at = $2, revoked_reason = 'disabled' WHERE user_id = $1 AND revoked_at IS NULL`,
        [id, at],
      );
    },
    audit: (entry) => writeAccountAudit(manager, entry),
  };
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
