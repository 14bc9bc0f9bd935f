interface Letter {
  id: string;
  topic: string;
  kind: string;
  status: string;
  failedAt: string;
  attempts: number;
  error: string;
}

const ERROR_WIDTH = 70;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** The letters, one a line; the error cut to one short line. */
export function letterTable(letters: readonly Letter[]): string {
  if (letters.length === 0) return 'no dead letters\n';
  return table(
    ['id', 'topic', 'kind', 'status', 'failed at', 'attempts', 'error'],
    letters.map((l) => {
      const error = l.error.replace(/\s+/g, ' ');
      return [
        l.id,
        l.topic,
        l.kind,
        l.status,
        l.failedAt,
        String(l.attempts),
        error.length > ERROR_WIDTH ? `${error.slice(0, ERROR_WIDTH - 1)}…` : error,
      ];
    }),
  );
}

export function topicTable(topics: readonly { topic: string; parked: number }[]): string {
  if (topics.length === 0) return 'no parked letters\n';
  return table(
    ['topic', 'parked'],
    topics.map((t) => [t.topic, String(t.parked)]),
  );
}
