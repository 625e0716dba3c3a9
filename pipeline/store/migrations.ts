// Versioned schema: sql/migrations/NNN_name.sql, applied in order at start, each in its own
// transaction together with its row in schema_migrations. A CHECKPOINT follows, because DuckDB
// cannot always replay schema changes from the WAL after a crash (duckdb issues 18732, 19712):
// after it, the schema lives in the database file and the WAL holds only data.
import { readdirSync, readFileSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlDir } from './sql-files.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dir = `${sqlDir}migrations/`): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: readFileSync(`${dir}${file}`, 'utf8'),
    }));
}

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function applyMigrations(conn: DuckDBConnection, migrations = listMigrations()): Promise<number[]> {
  await conn.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER NOT NULL, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)',
  );
  const done = new Set(
    (await conn.runAndReadAll('SELECT version FROM schema_migrations')).getRowObjectsJson().map((r) => Number(r.version)),
  );
  const applied: number[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    await conn.run('BEGIN TRANSACTION');
    try {
      await conn.run(migration.sql);
      await conn.run('INSERT INTO schema_migrations VALUES ($1, $2, make_timestamp(epoch_us(now())))', [migration.version, migration.name]);
      await conn.run('COMMIT');
    } catch (err) {
      await conn.run('ROLLBACK');
      throw new Error(`migration ${migration.version}_${migration.name} failed: ${(err as Error).message}`);
    }
    applied.push(migration.version);
  }
  await conn.run('CHECKPOINT');
  return applied;
}
