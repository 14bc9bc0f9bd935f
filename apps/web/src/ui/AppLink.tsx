import type { ReactNode } from 'react';
import { navigate } from '../router';

/**
 * An in-app link: a real address (a new tab, a copied link) that the router follows in place; `current` marks the
 * page the reader is on.
 */
export function AppLink({
  to,
  children,
  label,
  current,
}: {
  to: string;
  children: ReactNode;
  label?: string;
  current?: boolean;
}) {
  return (
    <a
      href={to}
      aria-label={label}
      aria-current={current ? 'page' : undefined}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
