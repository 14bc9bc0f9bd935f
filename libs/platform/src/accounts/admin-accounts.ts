import { type AccountAuditActor, AccountAuditEntity, UserEntity, type Role } from '@echoloop/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import { notifyAccountChanged } from './account-changes';
import { hashPassword } from './password-hasher';

/**
 * A transaction-scoped advisory lock taken by every change that can add or remove admin power (the admin API, the
 * CLI, the bootstrap admin), so "is there another admin?" stays true until the change commits, across replicas.
 */
const ADMIN_ACCOUNTS_LOCK = 7_301_295_310_900;

export async function lockAdminAccounts(tx: EntityManager): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [ADMIN_ACCOUNTS_LOCK]);
}

/** Admins that can still act: not disabled. */
export function countActiveAdmins(tx: EntityManager): Promise<number> {
  return tx
    .getRepository(UserEntity)
    .createQueryBuilder('u')
    .where(`'admin' = ANY(u.roles)`)
    .andWhere('u.disabled_at IS NULL')
    .getCount();
}

export interface AccountAuditInput {
  targetId: string;
  actor: AccountAuditActor;
  actorId?: string | null;
  action: 'created' | 'updated';
  before: Record<string, unknown> | null;
  after: Record<string, unknown>;
  at?: Date;
}

/** Call inside the transaction that makes the change: the row and the change commit or roll back together. */
export async function writeAccountAudit(tx: EntityManager, entry: AccountAuditInput): Promise<void> {
  await tx.getRepository(AccountAuditEntity).save({
    targetId: entry.targetId,
    actor: entry.actor,
    actorId: entry.actorId ?? null,
    action: entry.action,
    before: entry.before,
    after: entry.after,
    ...(entry.at && { at: entry.at }),
  });
}

export interface NewAdmin {
  /** Already normalised (lower-cased). */
  email: string;
  displayName: string;
  passwordHash: string;
}

export type AdminOutcome = 'created' | 'promoted' | 'unchanged';

/**
 * Makes `email` a working admin: creates the account, or adds `admin` to an existing one and enables it (its
 * password is left as it is). Audited; takes the admin lock, so call it in a transaction.
 */
export async function createOrPromoteAdmin(
  tx: EntityManager,
  admin: NewAdmin,
  actor: AccountAuditActor,
): Promise<{ userId: string; outcome: AdminOutcome }> {
  await lockAdminAccounts(tx);
  const users = tx.getRepository(UserEntity);
  const existing = await users
    .createQueryBuilder('u')
    .setLock('pessimistic_write')
    .where('u.email = :email', { email: admin.email })
    .getOne();
  if (!existing) {
    const roles: Role[] = ['user', 'admin'];
    const user = await users.save(
      users.create({
        email: admin.email,
        displayName: admin.displayName,
        passwordHash: admin.passwordHash,
        roles,
      }),
    );
    await writeAccountAudit(tx, {
      targetId: user.id,
      actor,
      action: 'created',
      before: null,
      after: { email: user.email, displayName: user.displayName, roles, disabled: false },
    });
    return { userId: user.id, outcome: 'created' };
  }
  const before = { roles: existing.roles, disabled: existing.disabledAt !== null };
  if (before.roles.includes('admin') && !before.disabled)
    return { userId: existing.id, outcome: 'unchanged' };
  const roles: Role[] = before.roles.includes('admin') ? existing.roles : [...existing.roles, 'admin'];
  await users.update({ id: existing.id }, { roles, disabledAt: null });
  await notifyAccountChanged(tx, existing.id);
  await writeAccountAudit(tx, {
    targetId: existing.id,
    actor,
    action: 'updated',
    before,
    after: { roles, disabled: false },
  });
  return { userId: existing.id, outcome: 'promoted' };
}

export type BootstrapOutcome = 'created' | 'admin_exists' | 'email_taken';

/**
 * The bootstrap admin from configuration: created only while no admin account exists at all, and never by
 * promoting an existing account (anyone may have registered that email). Safe when replicas start together.
 */
export async function ensureBootstrapAdmin(
  db: DataSource,
  { email, password, displayName = 'Admin' }: { email: string; password: string; displayName?: string },
): Promise<{ outcome: BootstrapOutcome; userId?: string }> {
  if (await anyAdmin(db.manager)) return { outcome: 'admin_exists' };
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    await lockAdminAccounts(tx);
    if (await anyAdmin(tx)) return { outcome: 'admin_exists' as const };
    if (await tx.getRepository(UserEntity).existsBy({ email })) return { outcome: 'email_taken' as const };
    const { userId } = await createOrPromoteAdmin(tx, { email, displayName, passwordHash }, 'bootstrap');
    return { outcome: 'created' as const, userId };
  });
}

function anyAdmin(manager: EntityManager): Promise<boolean> {
  return manager
    .getRepository(UserEntity)
    .createQueryBuilder('u')
    .where(`'admin' = ANY(u.roles)`)
    .getExists();
}
