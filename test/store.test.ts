// The database owner: migrations, the group-commit writer, the lock message, WAL failures.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openStore } from '../pipeline/store/store.ts';
import { applyMigrations, listMigrations } from '../pipeline/store/migrations.ts';
import { StoreLockedError, WalRecoveryError } from '../pipeline/store/errors.ts';
import { readRows } from '../pipeline/store/rows.ts';
import { repoRoot } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

function nodeModule(code: string) {
  return spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
}

/** Opens `file` in another process: 'opened', or the first line of DuckDB's error. */
async function openElsewhere(file: string): Promise<string> {
  const child = nodeModule(
    `import { DuckDBInstance } from '@duckdb/node-api';
     try { (await DuckDBInstance.create(${JSON.stringify(file)})).closeSync(); console.log('opened'); }
     catch (err) { console.log(err.message.split('\\n')[0]); }`,
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  await new Promise((resolve) => child.on('exit', resolve));
  return out.trim();
}

const insertAccount = `INSERT INTO accounts (id, name, plan, status, created_at) VALUES ($1, NULL, 'free', 'active', utc_now())`;

describe('openStore', () => {
  it('applies every migration once, records it, and checkpoints', async () => {
    const dataDir = tempDataDir('migrate');
    const store = await openStore({ dataDir });
    const recorded = await store.read('SELECT version, name FROM schema_migrations ORDER BY version');
    expect(recorded).toEqual(listMigrations().map((m) => ({ version: m.version, name: m.name })));
    // Only the small serving table keeps an ART index (migrations 015, 019, 030).
    expect(await store.read('SELECT table_name, index_name FROM duckdb_indexes() ORDER BY 1, 2'))
      .toEqual([{ table_name: 'address_feedback', index_name: 'address_feedback_address' }]);
    // After the checkpoint the schema lives in the database file, not in the WAL.
    const wal = `${store.file}.wal`;
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    await store.close();

    const again = await openStore({ dataDir });
    expect(await again.read('SELECT count(*)::INTEGER AS n FROM schema_migrations')).toEqual([{ n: recorded.length }]);
    await again.close();
  });

  it('migration 024 keeps every row and index, and stores 128-bit integers and address keys uncompressed from then on', async () => {
    const file = path.join(tempDataDir('migrate-024'), 'reputation.duckdb');
    const instance = await DuckDBInstance.create(file);
    const conn = await instance.connect();
    const read = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJson();
    const compressions = (table: string, column: string) =>
      read(`SELECT DISTINCT compression FROM pragma_storage_info('${table}') WHERE column_name = '${column}' AND segment_type IN ('HUGEINT', 'VARCHAR') ORDER BY 1`);
    try {
      const migrations = listMigrations();
      await applyMigrations(conn, migrations.filter((m) => m.version < 24));
      // Agent ids and amounts of the shape bit-packing takes: small, and a full uint256-sized one.
      const feedbackRows = `SELECT 'base', i, '0x' || i, 1, '0xreg', i % 500, '0xclient' || i, i, (i * 7)::HUGEINT * 1000000000000, 2, 'starred', '', '', '', ''
                              FROM range(5000) t(i)`;
      await conn.run(`INSERT INTO feedback ${feedbackRows}`);
      await conn.run(`INSERT INTO feedback VALUES ('base', 1, '0xbig', 1, '0xreg', 170141183460469231731687303715884105727, '0xc', 1, -5, 0, '', '', '', '', '')`);
      const pairRows = `SELECT 'base', '0x' || md5(i::VARCHAR)[:40], '0x' || md5((i + 1)::VARCHAR)[:40], 1, 1, i * 1000, NULL,
                               TIMESTAMP '2026-01-01', TIMESTAMP '2026-01-01', NULL, NULL FROM range(50000) t(i)`;
      await conn.run(`INSERT INTO payment_pairs ${pairRows}`);
      await conn.run('CHECKPOINT');
      const columns = [['feedback', 'agent_id'], ['feedback', 'value'], ['payment_pairs', 'volume'], ['payment_pairs', 'payer'], ['payment_pairs', 'payee']] as const;
      // Before it DuckDB compresses them (bit-packing, FSST; which one, and whether, it decides
      // per segment, and a busy machine can change that for the strings).
      const chosen = (await Promise.all(columns.map(([table, column]) => compressions(table, column)))).flat();
      expect(chosen).toContainEqual({ compression: 'BitPacking' });
      const before = await read('SELECT * FROM feedback ORDER BY block_number, agent_id');

      expect(await applyMigrations(conn, migrations.filter((m) => m.version <= 24))).toEqual([24]);
      expect(await read('SELECT * FROM feedback ORDER BY block_number, agent_id')).toEqual(before);
      expect(await read(`SELECT sum(volume)::VARCHAR AS v, count(*)::INTEGER AS n FROM payment_pairs`)).toEqual([{ v: String(1000 * 49999 * 50000 / 2), n: 50000 }]);
      expect(await read(`SELECT index_name FROM duckdb_indexes() WHERE table_name = 'agent_scores' ORDER BY 1`)).toEqual([
        { index_name: 'agent_scores_agent_wallet' },
        { index_name: 'agent_scores_owner' },
      ]);
      // Rows written later keep the column's setting.
      await conn.run(`INSERT INTO feedback ${feedbackRows}`);
      await conn.run(`INSERT INTO payment_pairs ${pairRows}`);
      await conn.run('CHECKPOINT');
      for (const [table, column] of columns) {
        expect(await compressions(table, column)).toEqual([{ compression: 'Uncompressed' }]);
      }
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });

  it('names the PID that holds the database and what to do', async () => {
    const dataDir = tempDataDir('lock');
    const file = path.join(dataDir, 'reputation.duckdb');
    const holder = nodeModule(
      // A running owner has written since its last checkpoint: a WAL lies beside the file. The
      // instance is kept on globalThis: a garbage-collected instance closes and lets go of the lock.
      `import { DuckDBInstance } from '@duckdb/node-api'; const db = globalThis.held = await DuckDBInstance.create(${JSON.stringify(file)});
       await (await db.connect()).run('CREATE TABLE held (x INTEGER)'); console.log('held'); setInterval(() => {}, 1000);`,
    );
    await new Promise((resolve) => holder.stdout!.once('data', resolve));
    try {
      expect(statSync(`${file}.wal`).size).toBeGreaterThan(0);
      const error = await openStore({ dataDir }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StoreLockedError);
      expect((error as StoreLockedError).pid).toBe(holder.pid);
      expect((error as Error).message).toContain(`held by another process (PID ${holder.pid}`);
      expect((error as Error).message).toContain(`kill ${holder.pid}`);
      // ...and the other way out: CLI commands go through a running server's admin endpoint.
      expect((error as Error).message).toContain("run CLI commands while it runs: they go through its admin endpoint");
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('refuses to start when the WAL cannot be replayed, and leaves the WAL alone', async () => {
    // A WAL written for a table this database does not have: DuckDB cannot replay it.
    const source = path.join(tempDataDir('wal-src'), 'a.duckdb');
    const writer = nodeModule(
      `import { DuckDBInstance } from '@duckdb/node-api';
       const db = await DuckDBInstance.create(${JSON.stringify(source)}); const c = await db.connect();
       await c.run('CREATE TABLE elsewhere (x INTEGER)'); await c.run('CHECKPOINT');
       await c.run('INSERT INTO elsewhere SELECT range FROM range(100)');
       process.kill(process.pid, 'SIGKILL');`,
    );
    await new Promise((resolve) => writer.on('exit', resolve));
    const dataDir = tempDataDir('wal');
    await (await openStore({ dataDir })).close();
    const wal = path.join(dataDir, 'reputation.duckdb.wal');
    copyFileSync(`${source}.wal`, wal);
    const before = readFileSync(wal);

    const error = await openStore({ dataDir }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(WalRecoveryError);
    expect((error as Error).message).toMatch(/^refusing to start: the write-ahead log .*reputation\.duckdb\.wal could not be replayed/);
    expect((error as Error).message).toContain('do not delete it');
    expect((error as Error).message).not.toContain('Stack Trace');
    expect(readFileSync(wal).equals(before)).toBe(true);
  });
  // A migration that fails is rolled back whole (its row too), named in the error, and leaves the connection usable.
  it('rolls a failing migration back whole and names it', async () => {
    const instance = await DuckDBInstance.create(path.join(tempDataDir('migrate-fail'), 'reputation.duckdb'));
    const conn = await instance.connect();
    const read = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJson();
    try {
      const migrations = [
        { version: 1, name: 'first', sql: 'CREATE TABLE first_table (x INTEGER)' },
        { version: 2, name: 'broken', sql: 'CREATE TABLE half_made (x INTEGER); SELECT * FROM no_such_table' },
      ];
      await expect(applyMigrations(conn, migrations)).rejects.toThrow(/^migration 2_broken failed: .*no_such_table/);
      expect(await read('SELECT version, name FROM schema_migrations ORDER BY version')).toEqual([{ version: 1, name: 'first' }]);
      expect(await read(`SELECT table_name FROM duckdb_tables() WHERE table_name IN ('first_table', 'half_made')`)).toEqual([{ table_name: 'first_table' }]);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });

  // Only files named NNN_name.sql are migrations, in version order.
  it('lists only NNN_name.sql files as migrations', () => {
    const dir = path.join(tempDataDir('migration-files'), 'migrations');
    mkdirSync(dir);
    for (const file of ['002_second.sql', '001_first.sql', 'notes.sql', '3_short.sql', '004_Upper.sql', '005_draft.sql.bak', 'README.md']) writeFileSync(path.join(dir, file), 'SELECT 1');
    expect(listMigrations(`${dir}/`).map((m) => [m.version, m.name])).toEqual([[1, 'first'], [2, 'second']]);
  });

  // close() lets queued writes commit first, then checkpoints: the WAL is empty and every write is there on reopening.
  it('close finishes queued writes and checkpoints them into the file', async () => {
    const dataDir = tempDataDir('close');
    const store = await openStore({ dataDir });
    const writes = Array.from({ length: 50 }, (_, i) =>
      store.write((tx) => tx.run(`INSERT INTO accounts (id, name, plan, status, created_at) VALUES ($1, NULL, 'free', 'active', utc_now())`, [`acc_${i}`])),
    );
    await store.close();
    expect((await Promise.allSettled(writes)).map((r) => r.status)).toEqual(writes.map(() => 'fulfilled'));
    const wal = `${store.file}.wal`;
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    const again = await openStore({ dataDir, readConnections: 1 });
    expect(await again.read('SELECT count(*)::INTEGER AS n FROM accounts')).toEqual([{ n: 50 }]);
    await again.close();
  });

  // A second close() is a no-op, and reads and writes after close are refused with 'store is closed'.
  it('closes once; reads, writes and borrowed connections after close are refused', async () => {
    const store = await openStore({ dataDir: tempDataDir('close-twice'), readConnections: 1 });
    await store.close();
    await expect(store.close()).resolves.toBeUndefined();
    await expect(store.read('SELECT 1')).rejects.toThrow('store is closed');
    await expect(store.withReadConnection(async () => 1)).rejects.toThrow('store is closed');
  });

  // close() lets the file go at once: the next owner (a CLI command, a restarted server) can open it
  // while this process lives on.
  it('refuses a second open of one database file in this process until the first is closed', async () => {
    // DuckDB would give a second instance, whose checkpoint at close overwrites the first's commits.
    const dir = tempDataDir('store-twice');
    const first = await openStore({ dataDir: dir });
    await first.write((tx) => tx.run('CREATE TABLE kept (n INTEGER); INSERT INTO kept VALUES (1)'));
    await expect(openStore({ dataDir: dir })).rejects.toThrow(`${path.join(dir, 'reputation.duckdb')} is already open in this process: close that store first`);
    await expect(openStore({ dataDir: `${dir}/` })).rejects.toThrow(/already open in this process/);
    await first.close();
    const again = await openStore({ dataDir: dir });
    expect(await again.read('SELECT n FROM kept')).toEqual([{ n: 1 }]);
    await again.close();
  });

  it('close releases the database to another process', async () => {
    const store = await openStore({ dataDir: tempDataDir('close-release') });
    await store.read('SELECT 1');
    await store.close();
    expect(await openElsewhere(store.file)).toBe('opened');
  });

  // A write that arrives once close() has begun is refused, not taken in after the last commit.
  it('refuses a write that arrives while close is under way', async () => {
    const dataDir = tempDataDir('close-racing');
    const store = await openStore({ dataDir });
    const closing = store.close();
    const late = store.write((tx) => tx.run(insertAccount, ['acc_late']));
    await expect(late).rejects.toThrow('store is closed');
    await closing;
  });

  // A start stopped by a failing migration closes the file: the migrations before it are
  // checkpointed (no schema change waits in the WAL) and the file is free for the next attempt.
  it('closes the database when a migration fails at start', async () => {
    const dataDir = tempDataDir('migrate-fail-start');
    const file = path.join(dataDir, 'reputation.duckdb');
    const instance = await DuckDBInstance.create(file);
    const conn = await instance.connect();
    await conn.run('CREATE TABLE agent_registrations (x INTEGER)'); // a table migration 002 creates
    conn.closeSync();
    instance.closeSync();

    await expect(openStore({ dataDir })).rejects.toThrow(/^migration 2_erc8004_imports_sanctions failed/);
    expect(!existsSync(`${file}.wal`) || statSync(`${file}.wal`).size === 0).toBe(true);
    expect(await openElsewhere(file)).toBe('opened');
  });

  // A file DuckDB cannot open, with no WAL beside it, is not reported as a WAL failure.
  it('reports a damaged database without a WAL as it is, not as a WAL that cannot be replayed', async () => {
    const dataDir = tempDataDir('not-a-db');
    writeFileSync(path.join(dataDir, 'reputation.duckdb'), 'this is not a DuckDB database file '.repeat(200));
    const error = await openStore({ dataDir }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(WalRecoveryError);
    expect(existsSync(path.join(dataDir, 'reputation.duckdb.wal'))).toBe(false);
  });
});

describe('group-commit writer', () => {
  it('commits concurrent writes, and a failing unit fails alone', async () => {
    const store = await openStore({ dataDir: tempDataDir('writer') });
    try {
      const ok = Array.from({ length: 200 }, (_, i) =>
        store.write((tx) => tx.run(`INSERT INTO accounts (id, name, plan, status, created_at) VALUES ($1, NULL, 'free', 'active', now())`, [`acc_${i}`])),
      );
      const failing = store.write(async (tx) => {
        await tx.run(`INSERT INTO accounts (id, name, plan, status, created_at) VALUES ('acc_doomed', NULL, 'free', 'active', now())`);
        await tx.run('SELECT * FROM no_such_table');
      });
      const results = await Promise.allSettled([...ok, failing]);
      expect(results.slice(0, 200).every((r) => r.status === 'fulfilled')).toBe(true);
      expect(results[200]).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/no_such_table/) }) });
      expect(await store.read('SELECT count(*)::INTEGER AS n FROM accounts')).toEqual([{ n: 200 }]);
      expect(await store.read(`SELECT count(*)::INTEGER AS n FROM accounts WHERE id = 'acc_doomed'`)).toEqual([{ n: 0 }]);
    } finally {
      await store.close();
    }
  });

  it('undoes the in-memory changes of a rolled-back group, so memory ends as the committed rows', async () => {
    const store = await openStore({ dataDir: tempDataDir('writer-undo') });
    try {
      // A set in memory kept in step with the rows, as the identity indexes are: each unit reads
      // it (an id already there is refused) and adds its id, with an undo.
      const ids = new Set<string>();
      const add = (id: string, fail = false) =>
        store.write(async (tx) => {
          if (ids.has(id)) return 'duplicate';
          await tx.run(`INSERT INTO accounts (id, name, plan, status, created_at) VALUES ($1, NULL, 'free', 'active', now())`, [id]);
          ids.add(id);
          tx.onRollback(() => ids.delete(id));
          if (fail) await tx.run('SELECT * FROM no_such_table');
          return 'added';
        });
      // One group: the failing unit rolls the group back; every unit runs again alone.
      const results = await Promise.allSettled([add('acc_a'), add('acc_b', true), add('acc_a'), add('acc_c')]);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual(['added', 'failed', 'duplicate', 'added']);
      expect([...ids].sort()).toEqual(['acc_a', 'acc_c']);
      const rows = await store.read('SELECT id FROM accounts ORDER BY id');
      expect(rows.map((r) => r.id)).toEqual(['acc_a', 'acc_c']);
    } finally {
      await store.close();
    }
  });

  it('stores utc_now() as UTC whatever the host zone', async () => {
    const store = await openStore({ dataDir: tempDataDir('utc') });
    try {
      const [row] = await store.write((tx) => tx.all(`SELECT epoch_ms(utc_now())::BIGINT::VARCHAR AS ms`));
      expect(Math.abs(Number(row!.ms) - Date.now())).toBeLessThan(60_000);
    } finally {
      await store.close();
    }
  });

  it('returns each unit its own result, and refuses writes after close', async () => {
    const store = await openStore({ dataDir: tempDataDir('results') });
    const results = await Promise.all([1, 2, 3].map((n) => store.write(async (tx) => (await tx.all(`SELECT ${n} * 10 AS v`))[0]!.v)));
    expect(results).toEqual([10, 20, 30]);
    await store.close();
    await expect(store.write(async () => 1)).rejects.toThrow('store is closed');
  });
  // Acknowledged means committed: a process killed the instant its writes resolved keeps every one.
  it('keeps writes acknowledged the instant before a SIGKILL', { timeout: 60_000 }, async () => {
    const dataDir = tempDataDir('ack-kill');
    await (await openStore({ dataDir })).close(); // migrated, so each child only writes
    const rounds = 3;
    for (let round = 0; round < rounds; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test/helpers/write-and-kill.ts'), dataDir, '50', `r${round}`], {
        cwd: repoRoot,
        stdio: 'inherit',
      });
      expect(await new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)))).toBe('SIGKILL');
    }
    const store = await openStore({ dataDir });
    try {
      expect(await store.read('SELECT count(*)::INTEGER AS n FROM accounts')).toEqual([{ n: rounds * 50 }]);
    } finally {
      await store.close();
    }
  });

  // Group commit: writes queued while one commits share the next transaction (the first runs alone).
  it('commits writes queued together in one transaction', async () => {
    const store = await openStore({ dataDir: tempDataDir('group') });
    try {
      const txids = await Promise.all(Array.from({ length: 10 }, () => store.write(async (tx) => String((await tx.all('SELECT txid_current() AS t'))[0]!.t))));
      expect(new Set(txids.slice(1)).size).toBe(1);
      expect(txids[0]).not.toBe(txids[1]);
    } finally {
      await store.close();
    }
  });
});

describe('read pool', () => {
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { open, opened };
  };
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  // DB_READ_CONNECTIONS defaults to 4: four readers hold a connection at once, a fifth waits for one.
  it('lends four connections by default, then makes callers wait', async () => {
    const store = await openStore({ dataDir: tempDataDir('pool-size') });
    const hold = gate();
    const started: number[] = [];
    const borrowers = [0, 1, 2, 3, 4].map((i) =>
      store.withReadConnection(async (conn) => {
        started.push(i);
        await hold.opened;
        return readRows(await conn.runAndReadAll(`SELECT ${i} AS v`))[0]!.v;
      }),
    );
    await turns(5);
    expect(started).toEqual([0, 1, 2, 3]);
    hold.open();
    expect(await Promise.all(borrowers)).toEqual([0, 1, 2, 3, 4]);
    await store.close();
  });

  // Callers waiting for a connection get one in arrival order.
  it('serves waiting readers in arrival order', async () => {
    const store = await openStore({ dataDir: tempDataDir('pool-order'), readConnections: 1 });
    const hold = gate();
    const order: string[] = [];
    const first = store.withReadConnection(() => hold.opened);
    const waiting = ['a', 'b', 'c', 'd'].map((name) => store.withReadConnection(async () => void order.push(name)));
    await turns(2);
    hold.open();
    await Promise.all([first, ...waiting]);
    expect(order).toEqual(['a', 'b', 'c', 'd']);
    await store.close();
  });

  // Reads run on their own connections: a write is seen once its transaction committed, and never
  // when it was rolled back.
  it('sees a write only once it committed', async () => {
    const store = await openStore({ dataDir: tempDataDir('pool-isolation'), readConnections: 1 });
    const count = async () => (await store.read('SELECT count(*)::INTEGER AS n FROM accounts'))[0]!.n;
    const inTransaction = (id: string, end: () => Promise<void>) => {
      const inserted = gate();
      const finish = gate();
      const writing = store.write(async (tx) => {
        await tx.run(insertAccount, [id]);
        inserted.open();
        await finish.opened;
        await end();
      });
      return { inserted: inserted.opened, finish: finish.open, writing };
    };
    try {
      const kept = inTransaction('acc_kept', async () => undefined);
      await kept.inserted;
      expect(await count()).toBe(0);
      kept.finish();
      await kept.writing;
      expect(await count()).toBe(1);

      const doomed = inTransaction('acc_doomed', async () => {
        throw new Error('refused');
      });
      await doomed.inserted;
      expect(await count()).toBe(1);
      doomed.finish();
      await expect(doomed.writing).rejects.toThrow('refused');
      expect(await count()).toBe(1);
    } finally {
      await store.close();
    }
  });

  // close() waits for a read in flight before it closes the connections; the read gets its rows.
  it('close waits for reads in flight', async () => {
    const store = await openStore({ dataDir: tempDataDir('pool-close'), readConnections: 1 });
    const hold = gate();
    const events: string[] = [];
    const reading = store.withReadConnection(async (conn) => {
      await hold.opened;
      const rows = readRows(await conn.runAndReadAll('SELECT 42 AS v'));
      events.push('read');
      return rows;
    });
    await turns(2);
    const closing = store.close().then(() => events.push('closed'));
    // The read is let go once close() has returned, or after a while if close() rightly waits for it.
    const fallback = setTimeout(hold.open, 1_000);
    void closing.then(hold.open);
    expect(await reading).toEqual([{ v: 42 }]);
    await closing;
    clearTimeout(fallback);
    expect(events).toEqual(['read', 'closed']);
  });
});
