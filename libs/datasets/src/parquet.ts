import { createReadStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import * as hyparquetWriter from 'hyparquet-writer';
import type { RecordWriter, WrittenFile } from './record-writer';

/**
 * A Parquet column of a dataset: scalars (nullable), JSON text, a chat (`list<struct<role, content>>`, what TRL,
 * VeRL and Hugging Face datasets read as messages), or a struct of such columns (VeRL's `reward_model`,
 * `extra_info`).
 */
export type ParquetColumn =
  | { name: string; kind: 'string' | 'double' | 'int' | 'boolean' | 'json' }
  | { name: string; kind: 'messages' }
  | { name: string; kind: 'struct'; fields: ParquetColumn[] };

type SchemaElement = Record<string, unknown> & { name: string };

const SCALAR: Record<string, Record<string, unknown>> = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  json: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  double: { type: 'DOUBLE' },
  int: { type: 'INT64', converted_type: 'INT_64' },
  boolean: { type: 'BOOLEAN' },
};

function elements(column: ParquetColumn, required = false): SchemaElement[] {
  const repetition_type = required ? 'REQUIRED' : 'OPTIONAL';
  switch (column.kind) {
    case 'messages':
      return [
        { name: column.name, repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', repetition_type: 'REQUIRED', num_children: 2 },
        { name: 'role', ...SCALAR['string'], repetition_type: 'REQUIRED' },
        { name: 'content', ...SCALAR['string'], repetition_type: 'REQUIRED' },
      ];
    case 'struct':
      return [
        { name: column.name, repetition_type: 'REQUIRED', num_children: column.fields.length },
        ...column.fields.flatMap((field) => elements(field)),
      ];
    default:
      return [{ name: column.name, ...SCALAR[column.kind], repetition_type }];
  }
}

/** The value a column holds, as the writer wants it (JSON as text, integers as bigint, structs recursively). */
function cell(column: ParquetColumn, value: unknown): unknown {
  if (value === undefined || value === null) return column.kind === 'messages' ? [] : null;
  switch (column.kind) {
    case 'json':
      return JSON.stringify(value);
    case 'int':
      return BigInt(Math.trunc(Number(value)));
    case 'struct': {
      const record = value as Record<string, unknown>;
      return Object.fromEntries(column.fields.map((field) => [field.name, cell(field, record[field.name])]));
    }
    default:
      return value;
  }
}

const ROW_GROUP = 10_000;

type Writer = ConstructorParameters<typeof hyparquetWriter.ParquetWriter>[0]['writer'];
/** Node's entry point of hyparquet-writer adds a buffered file writer its browser types do not declare. */
const { fileWriter, ParquetWriter } = hyparquetWriter as typeof hyparquetWriter & {
  fileWriter(filename: string): Writer;
};

/**
 * Parquet through hyparquet-writer: rows are buffered into column arrays one row group (10k rows) at a time and
 * flushed, so memory stays flat however long the dataset is.
 */
export function parquetWriter(path: string, columns: readonly ParquetColumn[]): RecordWriter {
  const schema = [
    { name: 'root', num_children: columns.length },
    ...columns.flatMap((c) => elements(c, false)),
  ];
  const writer = new ParquetWriter({ writer: fileWriter(path), schema: schema as never });
  let buffered: unknown[][] = columns.map(() => []);
  let rows = 0;
  const flush = () => {
    if (buffered[0]?.length === 0) return;
    const size = buffered[0]?.length ?? 0;
    writer.write({
      columnData: columns.map((column, i) => ({ name: column.name, data: buffered[i] ?? [] })),
      rowGroupSize: size,
    });
    buffered = columns.map(() => []);
  };
  return {
    async write(record) {
      columns.forEach((column, i) => buffered[i]?.push(cell(column, record[column.name])));
      rows += 1;
      if ((buffered[0]?.length ?? 0) >= ROW_GROUP) flush();
    },
    async close(): Promise<WrittenFile> {
      flush();
      writer.finish();
      const hash = createHash('sha256');
      for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
      return { path, rows, bytes: (await stat(path)).size, sha256: hash.digest('hex') };
    },
  };
}
