import { useEffect, useId, useRef, useState } from 'react';
import type { ApiKeyWithSecret } from './api-keys';
import { when } from '../../ui/format';

/** A new secret, shown once: a copy button, and a plain warning that it will not be shown again. */
export function SecretReveal({
  apiKey,
  rotated,
  onDone,
}: {
  apiKey: ApiKeyWithSecret;
  rotated: boolean;
  onDone: () => void;
}) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState('');

  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: 'nearest' });
  }, [apiKey.key]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(apiKey.key);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.select();
      setCopied('Could not copy: the secret is selected, press Ctrl+C (⌘C) to copy it.');
    }
  };

  return (
    <section className="secret-reveal" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} ref={heading} tabIndex={-1}>
        {rotated ? 'New secret' : 'Secret'} for “{apiKey.name}”
      </h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> Only a hash is stored; if it is lost, rotate
        the key for a new one.
      </p>
      <div className="secret-row">
        <label className="visually-hidden" htmlFor={`${id}-secret`}>
          Secret of {apiKey.name}
        </label>
        <input
          id={`${id}-secret`}
          ref={field}
          className="secret-value"
          readOnly
          value={apiKey.key}
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
      {rotated && apiKey.previousSecretValidUntil && (
        <p>The old secret keeps working until {when(apiKey.previousSecretValidUntil)}.</p>
      )}
      <button type="button" className="secondary" onClick={onDone}>
        Done, I have stored it
      </button>
    </section>
  );
}
