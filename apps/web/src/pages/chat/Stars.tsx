const VALUES = [1, 2, 3, 4, 5] as const;

/**
 * Stars 1-5 as a radio group: arrow keys move between them, the chosen one is announced; choosing the current
 * value again takes the rating back.
 */
export function Stars({
  name,
  value,
  onChange,
}: {
  name: string;
  value: number | null;
  onChange: (stars: number | null) => void;
}) {
  return (
    <fieldset className="stars">
      <legend className="visually-hidden">Stars</legend>
      {VALUES.map((n) => (
        <label key={n} className={value !== null && n <= value ? 'star star-on' : 'star'}>
          <input
            type="radio"
            name={name}
            value={n}
            checked={value === n}
            aria-label={n === 1 ? '1 star' : `${n} stars`}
            onChange={() => onChange(n)}
            onClick={() => value === n && onChange(null)}
          />
          <span aria-hidden="true">★</span>
        </label>
      ))}
    </fieldset>
  );
}
