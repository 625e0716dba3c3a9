// Times cross the store boundary as TIMESTAMP values from the identity clock (not the database's
// utc_now(), so tests can move time), and come back as ISO-8601 strings (sql/identity/*.sql).
import { timestampValue, type DuckDBTimestampValue } from '@duckdb/node-api';
import type { Json } from '@duckdb/node-api';

export function at(date: Date): DuckDBTimestampValue {
  return timestampValue(BigInt(date.getTime()) * 1000n);
}

/** The prune jobs' cutoff: `retentionDays` before `now`. */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * 86_400_000);
}

export function dateOf(value: Json | undefined): Date | null {
  return value === null || value === undefined ? null : new Date(String(value));
}

export function textOf(value: Json | undefined): string | null {
  return value === null || value === undefined ? null : String(value);
}
