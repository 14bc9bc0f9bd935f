import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import './one-time-secret.css';

/**
 * A new secret, shown once (a staff key's, or a user's personal key's): focused when it appears, a copy button
 * (or the text selected when copying fails), what to do with it, and a Done button.
 */
export function OneTimeSecret({
  secret,
  title,
  label,
  children,
  onDone,
}: {
  secret: string;
  title: string;
  /** The field's accessible name. */
  label: string;
  /** The warning and what to do with the secret. */
  children: ReactNode;
  onDone: () => void;
}) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState('');

  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: 'nearest' });
  }, [secret]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.select();
      setCopied('Could not copy: the text is selected, press Ctrl+C (⌘C) to copy it.');
    }
  };

  return (
    <section className="secret-reveal" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} ref={heading} tabIndex={-1}>
        {title}
      </h2>
      {children}
      <div className="secret-row">
        <label className="visually-hidden" htmlFor={`${id}-secret`}>
          {label}
        </label>
        <input
          id={`${id}-secret`}
          ref={field}
          className="secret-value"
          readOnly
          value={secret}
          spellCheck={false}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p role="status" className="muted">
        {copied}
      </p>
      <button type="button" className="secondary" onClick={onDone}>
        Done, I have stored it
      </button>
    </section>
  );
}
