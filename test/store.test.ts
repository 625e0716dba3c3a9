// The database owner: migrations, the group-commit writer, the lock message, WAL failures.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openStore } from '../pipeline/store/store.ts';
import { applyMigrations, listMigrations } from '../pipeline/store/migrations.ts';
import { StoreLockedError, WalRecoveryError } from '../pipeline/store/errors.ts';
import { repoRoot } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

function nodeModule(code: string) {
  return spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
}

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
      `import { DuckDBInstance } from '@duckdb/node-api'; await DuckDBInstance.create(${JSON.stringify(file)}); console.log('held'); setInterval(() => {}, 1000);`,
    );
    await new Promise((resolve) => holder.stdout!.once('data', resolve));
    try {
      const error = await openStore({ dataDir }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StoreLockedError);
      expect((error as StoreLockedError).pid).toBe(holder.pid);
      expect((error as Error).message).toContain(`held by another process (PID ${holder.pid}`);
      expect((error as Error).message).toContain(`kill ${holder.pid}`);
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
});
