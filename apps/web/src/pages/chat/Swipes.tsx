interface Alternative {
  id: string;
  selected?: boolean;
}

/**
 * "‹ 2/3 ›": browses the alternatives (swipes) of one user message; the kept one is marked, and another can be
 * kept instead (later turns see only the kept one).
 */
export function Swipes({
  alternatives,
  current,
  disabled,
  onBrowse,
  onKeep,
}: {
  alternatives: Alternative[];
  current: Alternative;
  disabled: boolean;
  onBrowse: (index: number) => void;
  onKeep: () => void;
}) {
  const index = alternatives.findIndex((a) => a.id === current.id);
  const total = alternatives.length;
  return (
    <div className="swipes" role="group" aria-label="Alternative replies">
      <button
        type="button"
        className="icon-button"
        aria-label="Previous alternative"
        disabled={disabled || index <= 0}
        onClick={() => onBrowse(index - 1)}
      >
        ‹
      </button>
      <span className="swipe-position" aria-live="polite">
        <span className="visually-hidden">Alternative </span>
        {index + 1}/{total}
      </span>
      <button
        type="button"
        className="icon-button"
        aria-label="Next alternative"
        disabled={disabled || index >= total - 1}
        onClick={() => onBrowse(index + 1)}
      >
        ›
      </button>
      {current.selected ? (
        <span className="swipe-kept">✓ Kept</span>
      ) : (
        <button type="button" className="link-button" disabled={disabled} onClick={onKeep}>
          Keep this reply
        </button>
      )}
    </div>
  );
}
