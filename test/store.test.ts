// The database owner: migrations, the group-commit writer, the lock message, WAL failures.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { openStore } from '../pipeline/store/store.ts';
import { listMigrations } from '../pipeline/store/migrations.ts';
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
    // After the checkpoint the schema lives in the database file, not in the WAL.
    const wal = `${store.file}.wal`;
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    await store.close();

    const again = await openStore({ dataDir });
    expect(await again.read('SELECT count(*)::INTEGER AS n FROM schema_migrations')).toEqual([{ n: recorded.length }]);
    await again.close();
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
