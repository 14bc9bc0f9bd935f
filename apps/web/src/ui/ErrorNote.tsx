/** An error in an alert region (screen readers announce it); nothing when there is none. */
export function ErrorNote({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" className="error">
      {error}
    </p>
  ) : null;
}
