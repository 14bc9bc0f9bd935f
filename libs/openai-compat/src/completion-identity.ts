import { randomUUID } from 'node:crypto';

/** The fields every chunk of one completion repeats unchanged. */
export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

export function newCompletionIdentity(model: string, now: Date = new Date()): CompletionIdentity {
  return {
    id: `chatcmpl-${randomUUID().replaceAll('-', '')}`,
    created: Math.floor(now.getTime() / 1000),
    model,
  };
}
