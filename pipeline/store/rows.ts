// Rows leave the store as JSON-safe objects: BIGINT and HUGEINT arrive as strings, timestamps as
// ISO-like strings, so nothing downstream trips over bigint serialisation.
import type { DuckDBResultReader, Json } from '@duckdb/node-api';

export type Row = Record<string, Json>;

export function readRows(reader: DuckDBResultReader): Row[] {
  return reader.getRowObjectsJson() as Row[];
}
