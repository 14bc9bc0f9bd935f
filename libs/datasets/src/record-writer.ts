/** A file a writer finished: where, how many records, its size and sha256. */
export interface WrittenFile {
  path: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/** Writes records to one file with backpressure, hashing what it writes. */
export interface RecordWriter {
  write(record: Record<string, unknown>): Promise<void>;
  close(): Promise<WrittenFile>;
}
