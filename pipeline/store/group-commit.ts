// The single serialised writer. Callers queue a unit of work; the writer runs everything queued
// so far inside one transaction and resolves each caller only after COMMIT returned, so an
// acknowledged write is durable (DuckDB writes the WAL at commit) and many small writes share
// one commit. A unit of work must only touch the database through `tx`: if one unit in a group
// fails, the group is rolled back and each unit is run again alone, so the failure stays with
// its caller and the others still commit.
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { Row } from './rows.ts';
import { readRows } from './rows.ts';

export interface WriteTx {
  run(sql: string, params?: DuckDBValue[]): Promise<void>;
  all(sql: string, params?: DuckDBValue[]): Promise<Row[]>;
  /** Appends rows in bulk through DuckDB's appender (columns in table order). */
  append(table: string, rows: readonly (readonly DuckDBValue[])[]): Promise<void>;
  /**
   * Undoes an in-memory change the unit made beside its writes, if its transaction rolls back.
   * A unit may keep state in memory in step with its rows (an index of tokens, say) and read it
   * again in a later unit of the same group; the undos run, newest first, before a failed group's
   * units are run again alone.
   */
  onRollback(undo: () => void): void;
}

export type WriteUnit<T> = (tx: WriteTx) => Promise<T>;

interface Pending {
  unit: WriteUnit<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export interface GroupCommitWriter {
  write<T>(unit: WriteUnit<T>): Promise<T>;
  /** Resolves once everything queued so far has committed or failed. */
  drain(): Promise<void>;
}

export function createGroupCommitWriter(conn: DuckDBConnection, options: { maxGroup?: number } = {}): GroupCommitWriter {
  const maxGroup = options.maxGroup ?? 256;
  const queue: Pending[] = [];
  let running: Promise<void> | null = null;

  const tx: Omit<WriteTx, 'onRollback'> = {
    run: async (sql, params) => {
      await conn.run(sql, params);
    },
    all: async (sql, params) => readRows(await conn.runAndReadAll(sql, params)),
    append: async (table, rows) => {
      const appender = await conn.createAppender(table);
      try {
        // Converting each value to its column's declared type keeps JS numbers out of DOUBLE.
        const types = Array.from({ length: appender.columnCount }, (_, i) => appender.columnType(i));
        for (const row of rows) {
          row.forEach((value, i) => (value === null ? appender.appendNull() : appender.appendValue(value, types[i])));
          appender.endRow();
        }
        appender.flushSync();
      } finally {
        appender.closeSync();
      }
    },
  };

  async function runGroup(group: Pending[]): Promise<unknown[]> {
    const undos: (() => void)[] = [];
    const groupTx: WriteTx = { ...tx, onRollback: (undo) => void undos.push(undo) };
    await conn.run('BEGIN TRANSACTION');
    try {
      const results: unknown[] = [];
      for (const pending of group) results.push(await pending.unit(groupTx));
      await conn.run('COMMIT');
      return results;
    } catch (err) {
      await conn.run('ROLLBACK').catch(() => undefined);
      for (const undo of undos.reverse()) undo();
      throw err;
    }
  }

  async function loop(): Promise<void> {
    while (queue.length > 0) {
      const group = queue.splice(0, maxGroup);
      try {
        const results = await runGroup(group);
        group.forEach((pending, i) => pending.resolve(results[i]));
      } catch (err) {
        if (group.length === 1) {
          group[0]!.reject(err);
          continue;
        }
        for (const pending of group) {
          try {
            const [result] = await runGroup([pending]);
            pending.resolve(result);
          } catch (alone) {
            pending.reject(alone);
          }
        }
      }
    }
    running = null;
  }

  return {
    write<T>(unit: WriteUnit<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ unit, resolve: resolve as (value: unknown) => void, reject });
        running ??= loop();
      });
    },
    async drain() {
      while (running) await running;
    },
  };
}
