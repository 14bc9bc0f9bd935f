import { Injectable } from '@nestjs/common';

export type AccountChangeListener = (userId: string) => void | Promise<void>;

/**
 * Whatever changes an account's power (roles, disabled, deleted, signed out everywhere) publishes here after its
 * transaction commits, so cached principals, refresh tokens and open sockets follow at once.
 */
@Injectable()
export class AccountChanges {
  private readonly listeners = new Set<AccountChangeListener>();

  subscribe(listener: AccountChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async publish(userId: string): Promise<void> {
    await Promise.all([...this.listeners].map(async (listener) => listener(userId)));
  }
}
