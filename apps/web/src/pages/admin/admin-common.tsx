import { useEffect, useRef, useState, type MouseEvent, type ReactNode } from 'react';
import { navigate } from '../../router';

/** Account roles, in the gateway's canonical order. */
export const ROLES = ['user', 'experimenter', 'analyst', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_HINTS: Record<Role, string> = {
  user: 'chats with characters',
  experimenter: 'checkpoints, experiments, RL jobs, evaluations',
  analyst: 'turns, exports, evaluations',
  admin: 'everything, users and API keys included',
};

/** A date and time in the reader's locale; a dash when there is none. */
export function when(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : '–';
}

export function ErrorNote({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" className="error">
      {error}
    </p>
  ) : null;
}

/** A link the router follows in place. */
export function PageLink({ href, children }: { href: string; children: ReactNode }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={follow}>
      {children}
    </a>
  );
}

/**
 * A button that asks before it acts: the question with "yes" and "cancel" in its place, focus on "yes"; back on
 * the button after cancelling.
 */
export function ConfirmAction({
  label,
  question,
  confirmLabel,
  disabled = false,
  danger = true,
  onConfirm,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  disabled?: boolean;
  danger?: boolean;
  onConfirm: () => unknown;
}) {
  const [asking, setAsking] = useState(false);
  const [cancelled, setCancelled] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
    else if (cancelled) trigger.current?.focus();
  }, [asking, cancelled]);

  if (!asking) {
    return (
      <button
        ref={trigger}
        type="button"
        className={danger ? 'danger' : 'secondary'}
        disabled={disabled}
        onClick={() => {
          setCancelled(false);
          setAsking(true);
        }}
      >
        {label}
      </button>
    );
  }
  return (
    <span className="confirm-action" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        ref={yes}
        type="button"
        className={danger ? 'danger' : undefined}
        onClick={() => {
          setAsking(false);
          void onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button
        type="button"
        className="secondary"
        onClick={() => {
          setCancelled(true);
          setAsking(false);
        }}
      >
        Cancel
      </button>
    </span>
  );
}
