// Analyst access: each export is one consistent Parquet snapshot of the serving tables and facts
// under DATA_DIR/exports/run=N/ with a `latest` pointer, and `reputation sql` reads only that
// snapshot, read-only, locked to its directory, while the server holds the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { exportLatestRun, keptRuns } from '../pipeline/export/export-run.ts';
import { exportedTables } from '../pipeline/export/tables.ts';
import { addresses, largeValue, writeFacts, writeScoringRun } from './helpers/export-fixture.ts';
import { cliEnv, repoRoot, runCli, startServe, stopServe } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

// Pinned by name (docs/analytics.md): address_feedback, for one, is not exported.
const exportedFiles = ['agent_scores', 'assessments', 'chain_scores', 'feedback', 'feedback_weights', 'payments', 'runs', 'scores', 'stats'].map((name) => `${name}.parquet`);
const { agentWallet, merchant, payer } = addresses;

/** Runs `sql` on the Parquet files of `directory` in a scratch DuckDB, as an analyst's `duckdb` would. */
async function readExport(directory: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    for (const file of readdirSync(directory).filter((f) => f.endsWith('.parquet'))) {
      await conn.run(`CREATE VIEW ${file.slice(0, -8)} AS FROM read_parquet('${path.join(directory, file)}', hive_partitioning = false)`);
    }
    return (await conn.runAndReadAll(sql)).getRowObjectsJson();
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function scoredStore(label: string): Promise<{ store: Store; dataDir: string }> {
  const dataDir = tempDataDir(label);
  const store = await openStore({ dataDir, readConnections: 2 });
  await writeScoringRun(store, 1, { [agentWallet]: 91, [merchant]: 60, [payer]: 20 });
  await writeFacts(store);
  return { store, dataDir };
}

describe('exportLatestRun', () => {
  let store: Store;
  let dataDir: string;
  beforeAll(async () => ({ store, dataDir } = await scoredStore('export')));
  afterAll(() => store?.close());
  const exportsDir = () => path.join(dataDir, 'exports');

  it('exports nothing before the first scoring run', async () => {
    const empty = await openStore({ dataDir: tempDataDir('export-empty'), readConnections: 1 });
    try {
      expect(await exportLatestRun(empty, path.dirname(empty.file))).toEqual({ runId: null, directory: null });
      expect(existsSync(path.join(path.dirname(empty.file), 'exports', 'latest'))).toBe(false);
    } finally {
      await empty.close();
    }
  });

  it('writes every table whole, with rows of earlier runs, and points latest at the run', async () => {
    // Run 2 is incremental: it rescored one address; the others keep their rows from run 1.
    await writeScoringRun(store, 2, { [merchant]: 77 });
    const result = await exportLatestRun(store, dataDir);
    expect(result).toEqual({ runId: 2, directory: path.join(exportsDir(), 'run=2') });
    expect(readdirSync(result.directory!).sort()).toEqual(exportedFiles);
    expect(readFileSync(path.join(exportsDir(), 'latest'), 'utf8')).toBe('run=2\n');

    const scores = await readExport(result.directory!, 'SELECT address, score, grade, run_id FROM scores ORDER BY address');
    expect(scores).toEqual([
      { address: agentWallet, score: 91, grade: 'A', run_id: 1 },
      { address: merchant, score: 77, grade: 'B', run_id: 2 },
      { address: payer, score: 20, grade: 'F', run_id: 1 },
    ]);
    expect(await readExport(result.directory!, 'SELECT count(*)::INTEGER AS n FROM chain_scores')).toEqual([{ n: 3 }]);
    expect(await readExport(result.directory!, 'SELECT run_id, kind FROM runs ORDER BY run_id')).toEqual([
      { run_id: 1, kind: 'full' },
      { run_id: 2, kind: 'incremental' },
    ]);
    // stats: only the exported run's.
    expect(await readExport(result.directory!, "SELECT run_id, name, body->>'run' AS run FROM stats")).toEqual([{ run_id: 2, name: 'v2', run: '2' }]);
  });

  it('keeps token values and agent ids exact (DECIMAL(38,0), not DOUBLE)', async () => {
    const directory = path.join(exportsDir(), 'run=2');
    const types = await readExport(directory, "SELECT column_name, column_type FROM (DESCRIBE payments) WHERE column_name IN ('value', 'amount_usdc')");
    expect(types).toEqual([
      { column_name: 'value', column_type: 'DECIMAL(38,0)' },
      { column_name: 'amount_usdc', column_type: 'DOUBLE' },
    ]);
    const payments = await readExport(directory, 'SELECT payee, value::VARCHAR AS value, amount_usdc, verified, origin FROM payments ORDER BY block_time');
    expect(payments).toEqual([
      { payee: agentWallet, value: '2500000', amount_usdc: 2.5, verified: true, origin: 'import' },
      { payee: merchant, value: largeValue, amount_usdc: Number(largeValue) / 1e6, verified: false, origin: 'import' },
    ]);
    for (const view of ['agent_scores', 'feedback_weights', 'feedback']) {
      expect(await readExport(directory, `SELECT column_type FROM (DESCRIBE ${view}) WHERE column_name = 'agent_id'`)).toEqual([{ column_type: 'DECIMAL(38,0)' }]);
    }
  });

  it('exports feedback from the chain and from files with its revocation', async () => {
    const feedback = await readExport(
      path.join(exportsDir(), 'run=2'),
      'SELECT client_address, agent_id::INTEGER AS agent_id, value_scaled, tag1, given_at::VARCHAR AS given_at, revoked, origin FROM feedback ORDER BY client_address',
    );
    expect(feedback).toEqual([
      { client_address: merchant, agent_id: 7, value_scaled: 60, tag1: 'uptime', given_at: '2026-01-04 00:00:00', revoked: false, origin: 'import' },
      { client_address: payer, agent_id: 7, value_scaled: 87.5, tag1: 'starred', given_at: '2026-01-03 00:00:00', revoked: false, origin: 'chain' },
      { client_address: addresses.sybil, agent_id: 7, value_scaled: 100, tag1: 'starred', given_at: '2026-01-03 00:00:00', revoked: true, origin: 'chain' },
    ]);
  });

  it('is one snapshot when a run commits during the export', async () => {
    const exporting = exportLatestRun(store, dataDir);
    const scoring = writeScoringRun(store, 3, { [payer]: 55 });
    const [result] = await Promise.all([exporting, scoring]);
    const [runs] = await readExport(result.directory!, 'SELECT max(run_id) AS newest FROM runs');
    const payerRow = await readExport(result.directory!, `SELECT run_id, score FROM scores WHERE address = '${payer}'`);
    const stats = await readExport(result.directory!, 'SELECT run_id FROM stats');
    // Whichever side of the commit the export read, every file agrees with its run id.
    expect(runs!.newest).toBe(result.runId);
    expect(payerRow).toEqual([result.runId === 3 ? { run_id: 3, score: 55 } : { run_id: 1, score: 20 }]);
    expect(stats).toEqual([{ run_id: result.runId }]);
  });

  it('re-exporting a run replaces its directory and leaves nothing temporary behind', async () => {
    const first = await exportLatestRun(store, dataDir);
    await store.write((tx) =>
      tx.run(`INSERT INTO imported_transfers VALUES ('imp_3', 'base', 103, TIMESTAMP '2026-01-05 00:00:00', '0x${'9'.repeat(64)}', 1, '0xusdc', '${payer}', '${merchant}', 1000000, '${payer}', true)`),
    );
    const again = await exportLatestRun(store, dataDir);
    expect(again).toEqual(first);
    expect(await readExport(again.directory!, 'SELECT count(*)::INTEGER AS n FROM payments')).toEqual([{ n: 3 }]);
    expect(readdirSync(again.directory!).sort()).toEqual(exportedFiles);
    expect(readdirSync(exportsDir()).filter((n) => n.includes('.tmp-') || n.includes('.old-'))).toEqual([]);
  });

  it(`keeps the newest ${keptRuns} runs and removes what a crashed export left`, async () => {
    mkdirSync(path.join(exportsDir(), 'run=9.tmp-0123456789ab'));
    writeFileSync(path.join(exportsDir(), 'latest.tmp-0123456789ab'), 'run=9\n');
    mkdirSync(path.join(exportsDir(), 'run=2.old-0123456789ab'));
    for (const runId of [4, 5, 6]) {
      await writeScoringRun(store, runId, { [payer]: 30 + runId });
      expect((await exportLatestRun(store, dataDir)).runId).toBe(runId);
    }
    expect(readdirSync(exportsDir()).sort()).toEqual(['latest', 'run=4', 'run=5', 'run=6']);
    expect(readFileSync(path.join(exportsDir(), 'latest'), 'utf8')).toBe('run=6\n');
  });
});

describe('reputation sql', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const sql = (...args: string[]) => runCli(['sql', ...args], env);
  beforeAll(async () => {
    const scored = await scoredStore('analytics-sql');
    dataDir = scored.dataDir;
    env = cliEnv(dataDir);
    try {
      await exportLatestRun(scored.store, dataDir);
    } finally {
      await scored.store.close();
    }
  });

  it('prints a table by default', async () => {
    const result = await sql('SELECT address, score, grade FROM scores ORDER BY score DESC');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      [
        'address                                     score  grade',
        '------------------------------------------  -----  -----',
        `${agentWallet}  91     A`,
        `${merchant}  60     C`,
        `${payer}  20     F`,
        '(3 rows)',
        '',
      ].join('\n'),
    );
  });

  it('prints CSV and JSON lines, with --limit', async () => {
    const csv = await sql('SELECT grade, count(*)::INTEGER AS n FROM scores GROUP BY grade ORDER BY grade', '--format', 'csv');
    expect(csv.stdout).toBe('grade,n\nA,1\nC,1\nF,1\n');
    const json = await sql(`SELECT weight_reason, sum(weight) AS weight FROM feedback_weights GROUP BY ALL ORDER BY weight DESC`, '--format', 'json', '--limit', '1');
    expect(json.stdout).toBe('{"weight_reason":"paid_verified","weight":1}\n');
    const empty = await sql("SELECT address FROM scores WHERE grade = 'Z'", '--format', 'csv');
    expect(empty.stdout).toBe('address\n');
  });

  it('reads the query from standard input with -, also one that starts with a -- comment', async () => {
    const query = '-- grades, best first\nSELECT grade FROM scores\nORDER BY grade;\n';
    // As an argument the comment reads as an option; `-` or `--` before it passes it.
    expect((await sql(query)).code).toBe(2);
    expect(await runCli(['sql', '-', '--format', 'csv'], env, undefined, query)).toMatchObject({ code: 0, stdout: 'grade\nA\nC\nF\n', stderr: '' });
    expect(await sql('--format', 'csv', '--', query)).toMatchObject({ code: 0, stdout: 'grade\nA\nC\nF\n' });
    // Standard input is checked like an argument: one read-only statement.
    expect(await runCli(['sql', '-'], env, undefined, 'DELETE FROM scores')).toMatchObject({ code: 1, stderr: expect.stringContaining('only read-only queries') });
    expect(await runCli(['sql', '-'], env, undefined, '')).toMatchObject({ code: 1, stdout: '', stderr: 'reputation: give exactly one SQL statement\n' });
  });

  it('writes to --out instead of stdout, and Parquet with --format parquet', async () => {
    const csvFile = path.join(dataDir, 'grades.csv');
    const csv = await sql('SELECT grade FROM scores ORDER BY grade', '--format', 'csv', '--out', csvFile);
    expect(csv).toMatchObject({ code: 0, stdout: '' });
    expect(readFileSync(csvFile, 'utf8')).toBe('grade\nA\nC\nF\n');
    // An existing file is replaced, not appended to.
    expect(await sql('SELECT grade FROM scores ORDER BY grade LIMIT 1', '--format', 'csv', '--out', csvFile)).toMatchObject({ code: 0, stdout: '' });
    expect(readFileSync(csvFile, 'utf8')).toBe('grade\nA\n');

    const parquetFile = path.join(dataDir, 'out', 'payments.parquet');
    mkdirSync(path.dirname(parquetFile));
    for (const limit of ['2', '1']) {
      // The second run overwrites the first file.
      const parquet = await sql('SELECT * FROM payments ORDER BY block_time;', '--format', 'parquet', '--out', parquetFile, '--limit', limit);
      expect(parquet).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect(await readExport(path.dirname(parquetFile), 'SELECT payee, value::VARCHAR AS value FROM payments')).toEqual([{ payee: agentWallet, value: '2500000' }]);
    expect(readdirSync(path.dirname(parquetFile))).toEqual(['payments.parquet']);

    const missing = await sql('SELECT 1', '--format', 'parquet');
    expect(missing).toMatchObject({ code: 2, stderr: 'reputation: --format parquet needs --out <file>\n' });
  });

  it('answers DESCRIBE, SHOW TABLES and EXPLAIN', async () => {
    const tables = await sql('SHOW TABLES', '--format', 'csv');
    expect(tables.stdout.trim().split('\n').slice(1).sort()).toEqual(exportedTables.map((t) => t.name).sort());
    expect((await sql('DESCRIBE scores', '--format', 'csv')).stdout).toMatch(/^column_name,column_type,.*\nrun_id,INTEGER,/);
    // A table shows the plan as DuckDB draws it, whole: not one cut cell.
    const plan = await sql('EXPLAIN SELECT * FROM chain_scores');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/┌─+┐/);
    expect(plan.stdout.split('\n').length).toBeGreaterThan(5);
    expect(plan.stdout).not.toMatch(/values cut|explain_key/);
    expect(plan.stdout).not.toMatch(/\s\n/);
    // csv and json give the plan as rows, like any result.
    expect((await sql('EXPLAIN SELECT * FROM chain_scores', '--format', 'csv')).stdout).toMatch(/^explain_key,explain_value\nphysical_plan,"/);
  });

  it('a view has exactly the columns of its file: the run=N directory adds no `run` column', async () => {
    const directory = path.join(dataDir, 'exports', 'run=1');
    const fileColumns = async (name: string) =>
      (await readExport(directory, `SELECT column_name FROM (DESCRIBE ${name})`)).map((r) => r.column_name as string);
    const scoresColumns = await fileColumns('scores');
    expect(scoresColumns).toContain('run_id');
    expect(scoresColumns).not.toContain('run');
    const star = await sql('SELECT * FROM scores LIMIT 1', '--format', 'csv');
    expect(star.code).toBe(0);
    expect(star.stdout.split('\n')[0]!.split(',')).toEqual(scoresColumns);

    // Every view, in one query.
    const views = await sql('SELECT table_name, column_name FROM information_schema.columns ORDER BY table_name, ordinal_position', '--format', 'json');
    expect(views.code).toBe(0);
    const columnsOf: Record<string, string[]> = {};
    for (const line of views.stdout.trim().split('\n')) {
      const { table_name, column_name } = JSON.parse(line) as { table_name: string; column_name: string };
      (columnsOf[table_name] ??= []).push(column_name);
    }
    const expected: Record<string, string[]> = {};
    for (const table of exportedTables) expected[table.name] = await fileColumns(table.name);
    expect(columnsOf).toEqual(expected);
  });

  it('refuses every statement but SELECT and EXPLAIN', async () => {
    const writes = [
      'DELETE FROM scores',
      'DROP VIEW scores',
      'CREATE TABLE t AS SELECT 1',
      "COPY (SELECT 1) TO '/tmp/reputation-sql-escape.csv'",
      "ATTACH '/tmp/reputation-sql-escape.duckdb' AS other",
      'SET enable_external_access = true',
      'EXPLAIN ANALYZE SELECT 1',
      'INSTALL httpfs',
      'CALL pragma_version()',
    ];
    const results = await Promise.all(writes.map((query) => sql(query)));
    for (const result of results) {
      expect(result).toMatchObject({ code: 1, stdout: '', stderr: 'reputation: only read-only queries (SELECT, EXPLAIN, DESCRIBE, SHOW, SUMMARIZE) are allowed\n' });
    }
    expect(existsSync('/tmp/reputation-sql-escape.csv')).toBe(false);
    expect(existsSync('/tmp/reputation-sql-escape.duckdb')).toBe(false);
  });

  it('refuses EXPLAIN ANALYZE however it is written: it runs the statement it explains', async () => {
    const escape = path.join(dataDir, 'exports', 'run=1', 'escape.csv');
    const queries = ['explain analyse select 1', '/* plan */ EXPLAIN ANALYZE SELECT 1', 'EXPLAIN (ANALYZE) SELECT 1', `\n-- into the export\nEXPLAIN ANALYZE COPY (SELECT 1) TO '${escape}'`];
    const results = await Promise.all(queries.map((query) => sql(query)));
    results.forEach((result, i) =>
      expect(result, queries[i]).toMatchObject({ code: 1, stdout: '', stderr: 'reputation: only read-only queries (SELECT, EXPLAIN, DESCRIBE, SHOW, SUMMARIZE) are allowed\n' }),
    );
    expect(existsSync(escape)).toBe(false);
  });

  it('cannot read files outside the export directory', async () => {
    const reads = {
      '/etc/passwd': "SELECT * FROM read_csv('/etc/passwd')",
      'reputation.duckdb': `SELECT * FROM read_parquet('${dataDir}/reputation.duckdb')`,
      latest: `SELECT count(*) FROM read_text('${dataDir}/exports/latest')`,
      // A path that starts inside the export directory and climbs out of it.
      'reputation.wal': `SELECT count(*) FROM read_text('${dataDir}/exports/run=1/../../reputation.wal')`,
    };
    const results = await Promise.all(Object.values(reads).map((query) => sql(query)));
    Object.keys(reads).forEach((file, i) => {
      expect(results[i]!.code).toBe(1);
      expect(results[i]!.stderr).toMatch(new RegExp(`^reputation: Permission Error: Cannot access file ".*${file}".*\\n$`));
    });
  });

  it('takes exactly one statement, and reports DuckDB errors on one line', async () => {
    expect(await sql('SELECT 1; SELECT 2')).toMatchObject({ code: 1, stderr: 'reputation: give exactly one SQL statement\n' });
    // No statement at all: the same, not DuckDB's client failing without a message.
    for (const none of ['', ' ;', '/* only a comment */']) expect(await sql(none), none).toMatchObject({ code: 1, stderr: 'reputation: give exactly one SQL statement\n' });
    const bad = await sql('SELEC nonsense');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^reputation: .*Parser Error: syntax error at or near "SELEC"\n$/);
    const unknown = await sql('SELECT * FROM address_scores');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^reputation: Catalog Error: Table with name address_scores does not exist/);
    // A read statement after a comment, in lower case, in parentheses: DuckDB's error, not a refusal.
    const nested = await sql('/* q */ (select nope from scores)');
    expect(nested.code).toBe(1);
    expect(nested.stderr).toMatch(/^reputation: Binder Error: .*nope/);
  });

  it('works while the server holds the database', async () => {
    const serve = await startServe(dataDir, env);
    try {
      const result = await sql(`SELECT count(*)::INTEGER AS n FROM payments WHERE verified`, '--format', 'json');
      expect(result).toMatchObject({ code: 0, stdout: '{"n":1}\n', stderr: '' });
    } finally {
      expect(await stopServe(serve)).toBe(0);
    }
  });

  it('a Parquet query that fails leaves neither the file nor a temporary one', async () => {
    const outDir = path.join(dataDir, 'failed-out');
    mkdirSync(outDir);
    // Fails while running (a conversion error on the first row), after the output file is opened.
    const failed = await sql('SELECT address::INTEGER FROM scores', '--format', 'parquet', '--out', path.join(outDir, 'x.parquet'));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^reputation: Conversion Error: /);
    expect(readdirSync(outDir)).toEqual([]);
  });

  it('registers only the .parquet files of the export as views', async () => {
    const stray = path.join(dataDir, 'exports', 'run=1', 'notes.txt');
    writeFileSync(stray, 'not a table\n');
    try {
      const tables = await sql('SHOW TABLES', '--format', 'csv');
      expect(tables.code).toBe(0);
      expect(tables.stdout.trim().split('\n').slice(1).sort()).toEqual(exportedTables.map((t) => t.name).sort());
    } finally {
      rmSync(stray);
    }
  });

  it.skipIf(!existsSync('/usr/bin/script'))('on a terminal, only the table format names the export run', async () => {
    // `script` gives the command a terminal (stdout and stderr both go to it).
    const onTerminal = (...args: string[]) =>
      new Promise<string>((resolve, reject) => {
        const command = [process.execPath, path.join(repoRoot, 'bin/reputation.js'), 'sql', ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
        const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], { env, cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d));
        child.on('error', reject);
        child.on('close', () => resolve(out.replaceAll('\r\n', '\n')));
      });
    const runLine = `-- export run=1 (${path.join(dataDir, 'exports', 'run=1')})\n`;
    expect(await onTerminal('SELECT 1 AS a')).toBe(`${runLine}a\n-\n1\n(1 row)\n`);
    expect(await onTerminal('SELECT 1 AS a', '--format', 'csv')).toBe('a\n1\n');
    expect(await onTerminal('SELECT 1 AS a', '--format', 'json')).toBe('{"a":1}\n');
  });

  it('says how to get an export when there is none', async () => {
    const empty = tempDataDir('analytics-sql-empty');
    const result = await runCli(['sql', 'SELECT 1'], cliEnv(empty));
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`reputation: no export in ${path.join(empty, 'exports')} yet: run \`reputation score\`, then \`reputation export\`\n`);
  });

  it('says what is wrong when latest names a missing export or is not run=N', async () => {
    const broken = tempDataDir('analytics-sql-broken');
    const pointer = path.join(broken, 'exports', 'latest');
    mkdirSync(path.dirname(pointer));
    writeFileSync(pointer, 'run=7\n');
    expect(await runCli(['sql', 'SELECT 1'], cliEnv(broken))).toMatchObject({ code: 1, stdout: '', stderr: `reputation: ${pointer} names run=7, which is missing\n` });
    for (const content of ['seven\n', 'run=7 and more\n']) {
      writeFileSync(pointer, content);
      expect(await runCli(['sql', 'SELECT 1'], cliEnv(broken))).toMatchObject({ code: 1, stdout: '', stderr: `reputation: ${pointer} should hold one line run=N\n` });
    }
  });

  it('lists the views in its help', async () => {
    const help = await sql('--help');
    expect(help.code).toBe(0);
    for (const table of exportedTables) expect(help.stdout).toContain(`  ${table.name} `);
  });
});

describe('exported facts', () => {
  const client = '0x6666666666666666666666666666666666666666';
  let directory: string;
  beforeAll(async () => {
    const dataDir = tempDataDir('export-facts');
    const store = await openStore({ dataDir, readConnections: 1 });
    try {
      await writeScoringRun(store, 1, { [payer]: 40 });
      await store.write(async (tx) => {
        // A chain payment whose transaction sender was not recorded (with a facilitator known,
        // so "sender IN facilitators" is NULL rather than false).
        await tx.run(`INSERT INTO facilitators VALUES ('base', '${addresses.facilitator}', 'test')`);
        await tx.run(`INSERT INTO chain_blocks VALUES ('base', 300, '0x${'1'.repeat(64)}', TIMESTAMP '2026-02-01 00:00:00', 'token')`);
        await tx.run(`INSERT INTO token_transfers VALUES ('base', 300, '0x${'2'.repeat(64)}', 5, '0xusdc', '${payer}', '${merchant}', 1000000)`);
        await tx.run(`INSERT INTO authorizations_used VALUES ('base', 300, '0x${'2'.repeat(64)}', 4, '0xusdc', '${payer}', '0x01')`);
        // One client's two entries on the chain, the second revoked; the first also in a file.
        await tx.run(`INSERT INTO chain_blocks VALUES ('base', 301, '0x${'3'.repeat(64)}', TIMESTAMP '2026-02-02 00:00:00', 'reputation')`);
        await tx.run(`
          INSERT INTO feedback VALUES
            ('base', 301, '0x${'4'.repeat(64)}', 0, '0xrep', 9, '${client}', 1, 90, 0, 'starred', '', '', '', ''),
            ('base', 301, '0x${'4'.repeat(64)}', 1, '0xrep', 9, '${client}', 2, 30, 0, 'starred', '', '', '', '')`);
        await tx.run(`INSERT INTO feedback_revocations VALUES ('base', 301, '0x${'5'.repeat(64)}', 2, '0xrep', 9, '${client}', 2)`);
        await tx.run(`
          INSERT INTO imported_feedback VALUES
            ('imp_1', 'base', '0xrep', 9, '${client}', 1, 10, 0, 'starred', '', NULL, false),
            ('imp_1', 'base', '0xrep', 9, '${client}', 3, 4250, 2, 'uptime', '', NULL, false)`);
      });
      directory = (await exportLatestRun(store, dataDir)).directory!;
    } finally {
      await store.close();
    }
  });

  it('a chain payment without a recorded sender is exported as not verified, submitter NULL', async () => {
    expect(await readExport(directory, 'SELECT origin, submitter, verified FROM payments')).toEqual([{ origin: 'chain', submitter: null, verified: false }]);
  });

  it('feedback: an imported entry the chain has is left out, revocation is per feedback_index, value_scaled uses the decimals', async () => {
    const feedback = await readExport(directory, 'SELECT feedback_index::INTEGER AS i, value_scaled, revoked, origin FROM feedback ORDER BY i');
    expect(feedback).toEqual([
      { i: 1, value_scaled: 90, revoked: false, origin: 'chain' },
      { i: 2, value_scaled: 30, revoked: true, origin: 'chain' },
      { i: 3, value_scaled: 42.5, revoked: false, origin: 'import' },
    ]);
  });
});

describe('export pruning', () => {
  it('a leftover temporary directory does not count as a run: the newest 3 real runs stay', async () => {
    const dataDir = tempDataDir('export-prune');
    const store = await openStore({ dataDir, readConnections: 1 });
    try {
      for (const runId of [1, 2]) {
        await writeScoringRun(store, runId, { [payer]: 40 + runId });
        await exportLatestRun(store, dataDir);
      }
      // What a crashed export of a later run would leave behind.
      mkdirSync(path.join(dataDir, 'exports', 'run=99.tmp-0123456789ab'));
      await writeScoringRun(store, 3, { [payer]: 43 });
      await exportLatestRun(store, dataDir);
      expect(readdirSync(path.join(dataDir, 'exports')).sort()).toEqual(['latest', 'run=1', 'run=2', 'run=3']);
    } finally {
      await store.close();
    }
  });

  it('orders runs by number, not as text: run=10 is newer than run=9', async () => {
    const dataDir = tempDataDir('export-prune-ten');
    const store = await openStore({ dataDir, readConnections: 1 });
    try {
      for (const runId of [8, 9, 10, 11]) {
        await writeScoringRun(store, runId, { [payer]: 40 + runId });
        await exportLatestRun(store, dataDir);
      }
      expect(readdirSync(path.join(dataDir, 'exports')).sort()).toEqual(['latest', 'run=10', 'run=11', 'run=9']);
    } finally {
      await store.close();
    }
  });
});

describe('reputation export', () => {
  it('exports the newest scoring run on demand and prints where', async () => {
    const dataDir = tempDataDir('export-cli');
    const store = await openStore({ dataDir, readConnections: 1 });
    try {
      await writeScoringRun(store, 1, { [payer]: 40 });
    } finally {
      await store.close();
    }
    const result = await runCli(['export'], cliEnv(dataDir));
    expect(result.code).toBe(0);
    const directory = path.join(dataDir, 'exports', 'run=1');
    expect(result.stdout).toContain(directory);
    expect(readFileSync(path.join(dataDir, 'exports', 'latest'), 'utf8')).toBe('run=1\n');
    expect(readdirSync(directory).sort()).toEqual(exportedFiles);
  });
});

describe('export edge cases', () => {
  let store: Store;
  let dataDir: string;
  /** 2^127 - 1, the largest HUGEINT: 39 digits, beyond DECIMAL(38,0). */
  const hugeAgentId = '170141183460469231731687303715884105727';
  beforeAll(async () => {
    dataDir = tempDataDir('export-edges');
    store = await openStore({ dataDir, readConnections: 2 });
    await writeScoringRun(store, 1, { [payer]: 40 });
    await store.write(async (tx) => {
      // Feedback in a block whose time was not indexed for the reputation source; the token
      // source indexed a block of the same number, which is not the feedback's block.
      await tx.run(`INSERT INTO chain_blocks VALUES ('base', 302, '0x${'6'.repeat(64)}', TIMESTAMP '2026-03-01 00:00:00', 'token')`);
      await tx.run(`INSERT INTO feedback VALUES ('base', 302, '0x${'7'.repeat(64)}', 0, '0xrep', 11, '${payer}', 1, 50, 0, 'starred', '', 'https://eleven.example/mcp', '', '')`);
      await tx.run(`INSERT INTO imported_feedback VALUES ('imp_1', 'base', '0xrep', 11, '${merchant}', 1, 70, 0, 'uptime', '', NULL, true)`);
      await tx.run(`INSERT INTO feedback_weights VALUES (1, 'base', '0xid', ${hugeAgentId}, '${payer}', 1, 50.0, 1.0, 'paid_verified')`);
    });
  });
  afterAll(() => store?.close());

  it('feedback: a chain entry whose block time is not indexed has given_at NULL, keeps its endpoint; an imported entry keeps its revoked', async () => {
    const { directory } = await exportLatestRun(store, dataDir);
    expect(await readExport(directory!, 'SELECT client_address, given_at, endpoint, revoked, origin FROM feedback ORDER BY origin')).toEqual([
      { client_address: payer, given_at: null, endpoint: 'https://eleven.example/mcp', revoked: false, origin: 'chain' },
      { client_address: merchant, given_at: null, endpoint: null, revoked: true, origin: 'import' },
    ]);
  });

  it('an agent id beyond 38 digits is exported as NULL instead of failing the export', async () => {
    const { directory } = await exportLatestRun(store, dataDir);
    expect(await readExport(directory!, 'SELECT agent_id FROM feedback_weights')).toEqual([{ agent_id: null }]);
  });

  it('two exports asked for at once both complete, one after the other', async () => {
    const results = await Promise.all([exportLatestRun(store, dataDir), exportLatestRun(store, dataDir)]);
    expect(results.map((r) => r.runId)).toEqual([1, 1]);
    expect(readdirSync(path.join(dataDir, 'exports')).sort()).toEqual(['latest', 'run=1']);
    expect(readdirSync(results[1].directory!).sort()).toEqual(exportedFiles);
  });
});
