import type { ReactNode } from 'react';

/** A labelled switch (a checkbox) with a line explaining what it does; disabled until its value is known. */
export function Toggle({
  label,
  hint,
  checked,
  onChange,
}: {
  label: string;
  hint: ReactNode;
  /** Null while unknown. */
  checked: boolean | null;
  onChange: (checked: boolean) => void;
}) {
  return (
    <label className="toggle">
      <input
        type="checkbox"
        checked={checked ?? false}
        disabled={checked === null}
        onChange={(event) => onChange(event.target.checked)}
      />
      <span>
        {label}
        <br />
        <span className="muted">{hint}</span>
      </span>
    </label>
  );
}
