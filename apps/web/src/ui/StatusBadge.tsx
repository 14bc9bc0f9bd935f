/** A status word as a badge (`.status status-<word>`). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return <span className={`status status-badge status-${status}`}>{label ?? status}</span>;
}
