// The owner of the DuckDB file. DuckDB lets exactly one process open a database file, so one
// process (`reputation serve`, or a CLI command when no server runs) creates a Store and everything
// else goes through it: writes through the group-commit writer, reads through a small pool of
// connections.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { applyMigrations } from './migrations.ts';
import { createGroupCommitWriter, type WriteUnit } from './group-commit.ts';
import { readRows, type Row } from './rows.ts';
import { StoreLockedError, WalRecoveryError } from './errors.ts';

export interface Store {
  readonly file: string;
  /** Runs a read-only query on a pooled connection. */
  read(sql: string, params?: DuckDBValue[]): Promise<Row[]>;
  /** Runs `unit` in the serialised writer; resolves after its transaction committed. */
  write<T>(unit: WriteUnit<T>): Promise<T>;
  /**
   * Runs `unit` in the operational writer: a second serialised writer, on its own connection, for
   * the identity half's short writes (sessions, tokens, captures, claims), which must not queue
   * behind a scoring run's transaction in the main one. Its units touch only the identity tables,
   * so the two writers' transactions never write the same rows (DuckDB commits both optimistically).
   */
  writeOperational<T>(unit: WriteUnit<T>): Promise<T>;
  /** Borrows a read connection for work that needs the connection itself (prepared statements). */
  withReadConnection<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
  /** Finishes queued writes, checkpoints and closes the file. */
  close(): Promise<void>;
}

/** The store as the identity half uses it: its writes go to the operational writer. */
export function operationalStore(store: Store): Store {
  return { ...store, write: (unit) => store.writeOperational(unit) };
}

export interface StoreOptions {
  dataDir: string;
  readConnections?: number;
}

export const databaseFileName = 'reputation.duckdb';

// Database files open in this process. DuckDB's lock is per process: a second opener here gets a
// second instance, not a lock error, and whichever checkpoints last overwrites the other's
// committed writes. So a second open of a file is refused, as another process's would be.
const openFiles = new Set<string>();

export async function openStore(options: StoreOptions): Promise<Store> {
  mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, databaseFileName);
  const key = path.resolve(file);
  if (openFiles.has(key)) throw new Error(`${file} is already open in this process: close that store first`);
  openFiles.add(key);
  try {
    return await openFile(file, options, () => openFiles.delete(key));
  } catch (err) {
    openFiles.delete(key);
    throw err;
  }
}

/** The store on `file`; `release` is called once it has let the file go at close. */
async function openFile(file: string, options: StoreOptions, release: () => void): Promise<Store> {
  const instance = await createInstance(file);
  const writeConn = await instance.connect();
  try {
    await applyMigrations(writeConn);
  } catch (err) {
    writeConn.closeSync();
    instance.closeSync();
    throw err;
  }
  const writer = createGroupCommitWriter(writeConn);
  const operationalConn = await instance.connect();
  const operational = createGroupCommitWriter(operationalConn);
  const pool = await createReadPool(instance, options.readConnections ?? 4);
  const open = <T>(fn: () => Promise<T>) => (closed ? Promise.reject(new Error('store is closed')) : fn());

  let closed = false;
  return {
    file,
    read: (sql, params) => open(() => pool.use(async (conn) => readRows(await conn.runAndReadAll(sql, params)))),
    write: (unit) => open(() => writer.write(unit)),
    writeOperational: (unit) => open(() => operational.write(unit)),
    withReadConnection: (fn) => open(() => pool.use(fn)),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([writer.drain(), operational.drain()]);
      await pool.drain();
      // A checkpoint folds the WAL into the file, so the next start replays nothing. The file is
      // let go even if it fails (DuckDB replays the WAL at the next start instead).
      try {
        await writeConn.run('CHECKPOINT');
      } finally {
        pool.closeAll();
        operationalConn.closeSync();
        writeConn.closeSync();
        instance.closeSync();
        release();
      }
    },
  };
}

async function createInstance(file: string): Promise<DuckDBInstance> {
  try {
    // Timestamps are stored as UTC through the utc_now() macro (sql/migrations/005): now() into a
    // TIMESTAMP column would take the host's zone, and the TimeZone setting needs ICU, which this
    // DuckDB build cannot load.
    return await DuckDBInstance.create(file);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const lock = /Conflicting lock is held in (.*?) \(PID (\d+)\)/.exec(message);
    if (lock) throw new StoreLockedError(file, Number(lock[2]), lock[1]!);
    // DuckDB appends a C++ stack trace to internal errors: keep its first line only.
    if (existsSync(`${file}.wal`)) throw new WalRecoveryError(file, message.split('\n')[0]!);
    throw err;
  }
}

interface ReadPool {
  use<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
  drain(): Promise<void>;
  closeAll(): void;
}

// A connection runs one query at a time; callers wait for a free one in arrival order.
async function createReadPool(instance: DuckDBInstance, size: number): Promise<ReadPool> {
  const all: DuckDBConnection[] = [];
  for (let i = 0; i < size; i++) all.push(await instance.connect());
  const idle = [...all];
  const waiting: ((conn: DuckDBConnection) => void)[] = [];
  let onIdle: (() => void) | null = null;

  const acquire = () => {
    const conn = idle.pop();
    return conn ? Promise.resolve(conn) : new Promise<DuckDBConnection>((resolve) => waiting.push(resolve));
  };
  const release = (conn: DuckDBConnection) => {
    const next = waiting.shift();
    if (next) return next(conn);
    idle.push(conn);
    if (idle.length === all.length) onIdle?.();
  };

  return {
    async use(fn) {
      const conn = await acquire();
      try {
        return await fn(conn);
      } finally {
        release(conn);
      }
    },
    drain: () => (idle.length === all.length ? Promise.resolve() : new Promise<void>((resolve) => (onIdle = resolve))),
    closeAll: () => all.forEach((conn) => conn.closeSync()),
  };
}
