import { useEffect, useId, useRef, useState } from 'react';
import type { PersonalKeyWithSecret } from './personal-keys';

/** A new personal key's secret, shown once: a copy button, and a plain warning that it will not be shown again. */
export function NewKeySecret({ apiKey, onDone }: { apiKey: PersonalKeyWithSecret; onDone: () => void }) {
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
      setCopied('Could not copy: the key is selected, press Ctrl+C (⌘C) to copy it.');
    }
  };

  return (
    <section className="key-secret" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} ref={heading} tabIndex={-1}>
        Your key for “{apiKey.name}”
      </h3>
      <p>
        <strong>Copy it now: it will not be shown again.</strong> Paste it into your app as its API key. If
        you lose it, revoke it and create another.
      </p>
      <div className="key-secret-row">
        <label className="visually-hidden" htmlFor={`${id}-secret`}>
          Key for {apiKey.name}
        </label>
        <input
          id={`${id}-secret`}
          ref={field}
          className="key-secret-value"
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
      <button type="button" className="secondary" onClick={onDone}>
        Done, I have stored it
      </button>
    </section>
  );
}
