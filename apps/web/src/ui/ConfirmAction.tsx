import { useEffect, useRef, useState } from 'react';

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
