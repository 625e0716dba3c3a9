// The decision audit trail of POST /v1/assess (identity/assess/audit.ts): decisions noted in memory
// reach `assessments` in batches through the operational writer, none is lost at close, a failed
// write is tried again, the buffer is bounded (oldest dropped, counted in a log line), the policy
// hash is canonical, no field can carry a secret; the prune-assessments job, the export beside the
// serving tables, and `reputation assessments`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { createLogger, silentLogger, type Logger } from '../pipeline/log.ts';
import { loadConfig, ConfigError } from '../pipeline/config.ts';
import { newSecret, sha256Hex } from '../pipeline/secrets.ts';
import { defaultSchedules } from '../jobs/definitions.ts';
import { runHandler } from '../jobs/handlers.ts';
import { exportLatestRun } from '../pipeline/export/export-run.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { AuditRecordError, AuditTrail, policyHash, type AssessmentRecord } from '../identity/assess/audit.ts';
import { pruneAssessments } from '../identity/assess/assessments.ts';
import { writeScoringRun } from './helpers/export-fixture.ts';
import { cliEnv, runCli } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

const evm = '0x1111111111111111111111111111111111111111';
const solana = 'awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh';
const day = 86_400_000;

let sequence = 0;
/** A valid record; each gets its own request id and a later time than the one before. */
function entry(over: Partial<AssessmentRecord> = {}): AssessmentRecord {
  sequence += 1;
  return {
    assessedAt: new Date(Date.parse('2026-06-01T12:00:00Z') + sequence),
    requestId: `req_test${String(sequence).padStart(8, '0')}`,
    accountId: 'acc_merchant1',
    identityKind: 'wallet',
    identity: evm,
    operatorId: null,
    decision: 'allow',
    reasons: ['no_policy_applied'],
    policyHash: null,
    signerMatch: null,
    signerSanctions: null,
    ...over,
  };
}

/** A logger keeping its lines. */
function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: createLogger('test', (line) => lines.push(line)), lines };
}

/** The store's operational writer, counted, and failing while `failing` is set. */
function flakyWriter(store: Store) {
  const state = { writes: 0, refused: 0, failing: false };
  const writer = {
    writeOperational: <T>(unit: Parameters<Store['writeOperational']>[0]): Promise<T> => {
      if (state.failing) {
        state.refused += 1;
        return Promise.reject(new Error('IO Error: could not write to the WAL (disk full)'));
      }
      state.writes += 1;
      return store.writeOperational(unit) as Promise<T>;
    },
  };
  return { writer, state };
}

async function waitFor(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('AuditTrail', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('audit-trail'), readConnections: 2 });
  });
  afterAll(() => store?.close());

  const count = async (where = 'true') => Number((await store.read(`SELECT count(*) AS n FROM assessments WHERE ${where}`))[0]!.n);
  const requestIds = async (prefix: string) => (await store.read(`SELECT request_id FROM assessments WHERE request_id LIKE '${prefix}%' ORDER BY request_id`)).map((r) => String(r.request_id));

  it('record does not write: rows wait in memory until a flush, which writes them in one unit', async () => {
    const { writer, state } = flakyWriter(store);
    const audit = new AuditTrail({ store: writer, log: silentLogger, flushIntervalMs: 0, flushAtRecords: 10_000 });
    const before = await count();
    for (let i = 0; i < 500; i++) expect(audit.record(entry({ accountId: 'acc_batch' }))).toBeUndefined();
    expect(state.writes).toBe(0);
    expect(await count()).toBe(before);
    expect(audit.stats.buffered).toBe(500);
    await audit.flush();
    expect(state.writes).toBe(1);
    expect(await count("account_id = 'acc_batch'")).toBe(500);
    await audit.close();
  });

  it('record answers at once while the writer is busy: the request never waits for the store', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = { writeOperational: async <T>(unit: Parameters<Store['writeOperational']>[0]) => (await gate, store.writeOperational(unit) as Promise<T>) };
    const audit = new AuditTrail({ store: slow, log: silentLogger, flushIntervalMs: 0, flushAtRecords: 5 });
    const started = performance.now();
    for (let i = 0; i < 50; i++) audit.record(entry({ accountId: 'acc_gated' }));
    expect(performance.now() - started).toBeLessThan(200);
    // Nothing goes round the writer it was given: held there, no row arrives.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await count("account_id = 'acc_gated'")).toBe(0);
    release();
    await waitFor(async () => (await count("account_id = 'acc_gated'")) === 50);
    await audit.close();
  });

  it('writes on its own: every interval, and at once past flushAtRecords, in few writes', async () => {
    const { writer, state } = flakyWriter(store);
    const timed = new AuditTrail({ store: writer, log: silentLogger, flushIntervalMs: 100 });
    for (let i = 0; i < 300; i++) timed.record(entry({ accountId: 'acc_timed' }));
    await waitFor(async () => (await count("account_id = 'acc_timed'")) === 300);
    expect(state.writes).toBeLessThanOrEqual(2);
    await timed.close();

    const bySize = flakyWriter(store);
    const sized = new AuditTrail({ store: bySize.writer, log: silentLogger, flushIntervalMs: 0, flushAtRecords: 100 });
    for (let i = 0; i < 99; i++) sized.record(entry({ accountId: 'acc_sized' }));
    expect(bySize.state.writes).toBe(0);
    for (let i = 0; i < 151; i++) sized.record(entry({ accountId: 'acc_sized' }));
    // No timer and no flush(): the size alone started the writes.
    await waitFor(async () => (await count("account_id = 'acc_sized'")) === 250);
    expect(bySize.state.writes).toBeLessThanOrEqual(3);
    await sized.close();
  });

  it('loses nothing at close, and refuses records after it', async () => {
    const audit = new AuditTrail({ store, log: silentLogger, flushIntervalMs: 60_000 });
    for (let i = 0; i < 1234; i++) audit.record(entry({ accountId: 'acc_close' }));
    await audit.close();
    expect(await count("account_id = 'acc_close'")).toBe(1234);
    expect(() => audit.record(entry())).toThrow(/closed/);
  });

  it('keeps the rows of a failed write, in order, and writes them on the next try (logging only request ids)', async () => {
    const { writer, state } = flakyWriter(store);
    const { log, lines } = capturingLogger();
    const audit = new AuditTrail({ store: writer, log, flushIntervalMs: 0 });
    const secretish = { accountId: 'acc_privatealpha', identity: '0x2222222222222222222222222222222222222222', operatorId: 'op_privatebeta' };
    audit.record(entry({ ...secretish, requestId: 'req_retry_1' }));
    audit.record(entry({ ...secretish, requestId: 'req_retry_2' }));
    state.failing = true;
    await expect(audit.flush()).rejects.toThrow(/disk full/);
    expect(audit.stats.buffered).toBe(2);
    audit.record(entry({ ...secretish, requestId: 'req_retry_3' }));
    const warn = lines.find((l) => l.includes(' warn ') && l.includes('could not write assessment audit records'));
    expect(warn).toBeDefined();
    expect(warn).toContain('req_retry_1');
    for (const value of Object.values(secretish)) expect(lines.join('\n')).not.toContain(value);

    state.failing = false;
    await audit.flush();
    expect(await requestIds('req_retry_')).toEqual(['req_retry_1', 'req_retry_2', 'req_retry_3']);
    expect(lines.some((l) => l.includes('written again'))).toBe(true);
    await audit.close();
  });

  it('tries a failed write again on its own timer', async () => {
    const { writer, state } = flakyWriter(store);
    const audit = new AuditTrail({ store: writer, log: silentLogger, flushIntervalMs: 30 });
    state.failing = true;
    audit.record(entry({ requestId: 'req_timerretry_1' }));
    await waitFor(async () => state.refused >= 1);
    state.failing = false;
    await waitFor(async () => (await requestIds('req_timerretry_')).length === 1);
    await audit.close();
  });

  it('is bounded while the store refuses: the oldest go, and an error line counts them', async () => {
    const { writer, state } = flakyWriter(store);
    const { log, lines } = capturingLogger();
    const audit = new AuditTrail({ store: writer, log, flushIntervalMs: 0, maxBufferedRecords: 5 });
    state.failing = true;
    for (let i = 1; i <= 8; i++) audit.record(entry({ requestId: `req_bound_${i}` }));
    expect(audit.stats).toMatchObject({ buffered: 5, dropped: 3 });
    await expect(audit.flush()).rejects.toThrow();
    const dropped = lines.filter((l) => l.includes(' error ') && l.includes('oldest records dropped'));
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toContain('"dropped":3');
    state.failing = false;
    await audit.flush();
    expect(await requestIds('req_bound_')).toEqual(['req_bound_4', 'req_bound_5', 'req_bound_6', 'req_bound_7', 'req_bound_8']);
    await audit.close();
  });

  it('refuses loudly a record that carries a token, and stores no opc_ value', async () => {
    const audit = new AuditTrail({ store, log: silentLogger, flushIntervalMs: 0 });
    const token = newSecret('opc_');
    const refused = (over: Partial<AssessmentRecord>) => {
      let error: unknown;
      try {
        audit.record(entry(over));
      } catch (err) {
        error = err;
      }
      expect(error, JSON.stringify(over)).toBeInstanceOf(AuditRecordError);
      // The refusal never repeats the secret.
      expect(String((error as Error).message)).not.toContain(token.slice(4));
    };
    refused({ identityKind: 'operator_token', identity: token });
    refused({ identityKind: 'operator_token', identity: token.toUpperCase() });
    refused({ identityKind: 'operator_token', identity: token.slice(0, 8) });
    refused({ identityKind: 'operator_token', identity: `Bearer ${token}` });
    refused({ identityKind: 'wallet', identity: token });
    refused({ reasons: ['kyc_required', token] });
    refused({ requestId: token });
    refused({ operatorId: token });
    refused({ signerMatch: token });
    refused({ identityKind: 'operator_token', identity: newSecret('prt_') });
    // Not normalised, or not a verdict of its kind.
    refused({ identity: '0xABCDEF0000000000000000000000000000000001' });
    refused({ identity: ` ${evm}` });
    refused({ identityKind: 'operator_token', identity: 'sess_abc' });
    refused({ policyHash: 'not-a-hash' });
    refused({ decision: 'maybe' as 'allow' });
    refused({ reasons: ['kyc_required\uD800'] });
    expect(audit.stats.buffered).toBe(0);

    // Any operator_token identity with opc_ in it, however cased or placed, is refused.
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.constantFrom('opc_', 'OPC_', 'Opc_'), (before, after, prefix) => {
        expect(() => audit.record(entry({ identityKind: 'operator_token', identity: `${before}${prefix}${after}` }))).toThrow(AuditRecordError);
      }),
    );

    // What it takes: the token's id or 'unknown', and normalised wallets of both families.
    audit.record(entry({ identityKind: 'operator_token', identity: randomUUID(), operatorId: 'op_someone', accountId: 'acc_tokens' }));
    audit.record(entry({ identityKind: 'operator_token', identity: 'unknown', accountId: 'acc_tokens' }));
    audit.record(entry({ identity: solana, accountId: 'acc_tokens', policyHash: policyHash({ require_kyc: true }) }));
    await audit.close();
    expect(await count("account_id = 'acc_tokens'")).toBe(3);
    const leaked = await store.read(
      `SELECT count(*) AS n FROM assessments
        WHERE lower(concat_ws('|', request_id, account_id, identity, operator_id, policy_hash, signer_match, array_to_string(reasons, '|'))) LIKE '%opc\\_%' ESCAPE '\\'`,
    );
    expect(Number(leaked[0]!.n)).toBe(0);
  });
});

describe('policyHash', () => {
  it('is the SHA-256 of the canonical JSON: stable across key order, arrays as given', () => {
    const a = policyHash({ require_kyc: true, min_age: 18, blocked_jurisdictions: ['US', 'IR'] });
    const b = policyHash({ blocked_jurisdictions: ['US', 'IR'], require_kyc: true, min_age: 18 });
    expect(a).toBe(b);
    expect(a).toBe(sha256Hex('{"blocked_jurisdictions":["US","IR"],"min_age":18,"require_kyc":true}'));
    expect(policyHash({ z: { b: 1, a: [2, { d: 1, c: 2 }] } })).toBe(sha256Hex('{"z":{"a":[2,{"c":2,"d":1}],"b":1}}'));
    // An undefined member is absent, as in the JSON of the request.
    expect(policyHash({ require_kyc: true, min_age: undefined })).toBe(policyHash({ require_kyc: true }));
  });

  it('tells different policies apart, and is null without one', () => {
    const hashes = [
      policyHash({ require_kyc: true }),
      policyHash({ require_kyc: false }),
      policyHash({ require_kyc: true, min_age: 18 }),
      policyHash({ require_kyc: true, min_age: 21 }),
      policyHash({ blocked_jurisdictions: ['US', 'IR'] }),
      policyHash({ blocked_jurisdictions: ['IR', 'US'] }),
      policyHash({ allowed_jurisdictions: ['US', 'IR'] }),
      policyHash({}),
    ];
    expect(new Set(hashes).size).toBe(hashes.length);
    for (const h of hashes) expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(policyHash(undefined)).toBeNull();
    expect(policyHash({})).toBe(sha256Hex('{}'));
  });

  it('is stable under any reordering of keys (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (policy) => {
        const reversed = Object.fromEntries(Object.entries(policy).reverse());
        expect(policyHash(reversed)).toBe(policyHash(policy));
      }),
    );
  });
});

describe('prune-assessments', () => {
  it('deletes only rows older than the retention, and says how many', async () => {
    const store = await openStore({ dataDir: tempDataDir('audit-prune'), readConnections: 1 });
    try {
      const now = new Date('2026-06-01T00:00:00Z');
      const audit = new AuditTrail({ store, log: silentLogger, flushIntervalMs: 0 });
      const ages = { old400: 400, old366: 366, edge: 365, young364: 364, young1: 1 };
      for (const [name, days] of Object.entries(ages)) {
        // The edge row sits a second inside the window.
        const offset = name === 'edge' ? days * day - 1_000 : days * day;
        audit.record(entry({ requestId: `req_prune_${name}`, assessedAt: new Date(now.getTime() - offset) }));
      }
      await audit.close();
      expect(await pruneAssessments(store, 365, now)).toEqual({ deleted: 2, cutoff: '2025-06-01T00:00:00.000Z' });
      const left = (await store.read('SELECT request_id FROM assessments ORDER BY assessed_at')).map((r) => r.request_id);
      expect(left).toEqual(['req_prune_edge', 'req_prune_young364', 'req_prune_young1']);
      expect((await pruneAssessments(store, 365, now)).deleted).toBe(0);

      // The job: ASSESSMENT_RETENTION_DAYS from the config, the real clock, the count as its result.
      await store.writeOperational((tx) => tx.run('DELETE FROM assessments'));
      const config = loadConfig({ DATA_DIR: path.dirname(store.file), ASSESSMENT_RETENTION_DAYS: '30' });
      const recent = new AuditTrail({ store, log: silentLogger, flushIntervalMs: 0 });
      recent.record(entry({ requestId: 'req_prune_job_31', assessedAt: new Date(Date.now() - 31 * day) }));
      recent.record(entry({ requestId: 'req_prune_job_29', assessedAt: new Date(Date.now() - 29 * day) }));
      await recent.close();
      const result = (await runHandler({ store, config, log: silentLogger }, 'prune-assessments', {})) as { deleted: number };
      expect(result.deleted).toBe(1);
      expect((await store.read('SELECT request_id FROM assessments')).map((r) => r.request_id)).toEqual(['req_prune_job_29']);
    } finally {
      await store.close();
    }
  });

  it('keeps ASSESSMENT_RETENTION_DAYS within 1-3650 (default 365) and runs daily by default', () => {
    expect(loadConfig({ DATA_DIR: '/unused' }).assessmentRetentionDays).toBe(365);
    expect(loadConfig({ DATA_DIR: '/unused', ASSESSMENT_RETENTION_DAYS: '3650' }).assessmentRetentionDays).toBe(3650);
    expect(() => loadConfig({ DATA_DIR: '/unused', ASSESSMENT_RETENTION_DAYS: '0' })).toThrow(new ConfigError('invalid setting ASSESSMENT_RETENTION_DAYS: must be at least 1'));
    expect(() => loadConfig({ DATA_DIR: '/unused', ASSESSMENT_RETENTION_DAYS: '3651' })).toThrow(/ASSESSMENT_RETENTION_DAYS: must be at most 3650/);
    expect(defaultSchedules(loadConfig({ DATA_DIR: '/unused' })).filter((s) => s.jobName === 'prune-assessments')).toEqual([
      { scheduleId: 'prune-assessments', jobName: 'prune-assessments', jobData: {}, everySeconds: 86_400 },
    ]);
  });
});

describe('export and `reputation assessments`', () => {
  const dataDir = tempDataDir('audit-cli');
  const env = cliEnv(dataDir);
  const at = (minute: number) => new Date(Date.parse('2026-05-01T10:00:00Z') + minute * 60_000);

  beforeAll(async () => {
    const store = await openStore({ dataDir, readConnections: 1 });
    try {
      await writeScoringRun(store, 1, { [evm]: 80 });
      const audit = new AuditTrail({ store, log: silentLogger, flushIntervalMs: 0 });
      audit.record(entry({ requestId: 'req_cli_1', assessedAt: at(1), accountId: 'acc_one', decision: 'allow' }));
      audit.record(entry({ requestId: 'req_cli_2', assessedAt: at(2), accountId: 'acc_two', decision: 'deny', reasons: ['kyc_required', 'sanctions_flagged'], policyHash: policyHash({ require_kyc: true }) }));
      audit.record(
        entry({ requestId: 'req_cli_3', assessedAt: at(3), accountId: 'acc_one', decision: 'deny', reasons: ['sanctions_check_unavailable'], signerMatch: 'pass', signerSanctions: 'unavailable' }),
      );
      audit.record(entry({ requestId: 'req_cli_4', assessedAt: at(4), accountId: 'acc_two', decision: 'allow', identityKind: 'operator_token', identity: 'unknown' }));
      audit.record(entry({ requestId: 'req_cli_5', assessedAt: at(5), accountId: 'acc_one', decision: 'allow', identity: solana }));
      await audit.close();
      const exported = await exportLatestRun(store, dataDir);
      expect(existsSync(path.join(exported.directory!, 'assessments.parquet'))).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('exports the table beside the serving tables, for `reputation sql`', async () => {
    const grouped = await runCli(['sql', 'SELECT decision, count(*)::INTEGER AS n FROM assessments GROUP BY 1 ORDER BY 1', '--format', 'json'], env);
    expect(grouped.code, grouped.stderr).toBe(0);
    expect(grouped.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { decision: 'allow', n: 3 },
      { decision: 'deny', n: 2 },
    ]);
    const reasons = await runCli(['sql', "SELECT request_id, reasons, policy_hash FROM assessments WHERE list_contains(reasons, 'sanctions_flagged')", '--format', 'json'], env);
    expect(JSON.parse(reasons.stdout.trim())).toEqual({ request_id: 'req_cli_2', reasons: ['kyc_required', 'sanctions_flagged'], policy_hash: policyHash({ require_kyc: true }) });
  });

  it('lists the newest first, limited and filtered, as a table or JSON lines', async () => {
    const ids = (stdout: string) => stdout.trim().split('\n').map((l) => (JSON.parse(l) as { request_id: string }).request_id);
    const all = await runCli(['assessments', '--json'], env);
    expect(all.code, all.stderr).toBe(0);
    expect(ids(all.stdout)).toEqual(['req_cli_5', 'req_cli_4', 'req_cli_3', 'req_cli_2', 'req_cli_1']);
    expect(JSON.parse(all.stdout.split('\n')[2]!)).toEqual({
      assessed_at: '2026-05-01T10:03:00.000Z',
      request_id: 'req_cli_3',
      account_id: 'acc_one',
      identity_kind: 'wallet',
      identity: evm,
      operator_id: null,
      decision: 'deny',
      reasons: ['sanctions_check_unavailable'],
      policy_hash: null,
      signer_match: 'pass',
      signer_sanctions: 'unavailable',
    });
    const filtered = await runCli(['assessments', '--account', 'acc_one', '--decision', 'allow', '--limit', '1', '--json'], env);
    expect(filtered.code, filtered.stderr).toBe(0);
    expect(ids(filtered.stdout)).toEqual(['req_cli_5']);
    const denied = await runCli(['assessments', '--decision', 'deny'], env);
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toMatch(/^assessed_at\s+request_id\s+account_id/);
    expect(denied.stdout).toMatch(/req_cli_3[^\n]+\n[^\n]*req_cli_2/);
    expect(denied.stdout).toContain('["kyc_required","sanctions_flagged"]');
    expect(denied.stdout).toContain('(2 rows)');
  });

  it('refuses bad usage with exit 2, and explains itself in --help', async () => {
    for (const args of [['--limit', '0'], ['--limit', '501'], ['--limit', 'ten'], ['--decision', 'maybe'], ['--account', ''], ['--frobnicate']]) {
      const result = await runCli(['assessments', ...args], env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^reputation: /);
    }
    const help = await runCli(['assessments', '--help'], env);
    expect(help.code).toBe(0);
    for (const word of ['--limit', '--account', '--decision', '--json', 'newest first', 'ASSESSMENT_RETENTION_DAYS']) expect(help.stdout).toContain(word);
  });
});

describe('the server', () => {
  const dataDir = tempDataDir('audit-server');
  let server: RunningServer;
  beforeAll(async () => {
    // No timer: only the flush before a listing and the one at close write.
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger, { auditFlushIntervalMs: 0 });
  });
  afterAll(() => server?.close());

  it('hands the identity half its audit trail; the CLI lists through it, and close writes the rest', async () => {
    expect(server.identity.deps.audit).toBe(server.audit);
    server.audit.record(entry({ requestId: 'req_server_1', accountId: 'acc_served' }));
    // Through the admin endpoint: the server flushes before it lists.
    const listed = await runCli(['assessments', '--account', 'acc_served', '--json'], cliEnv(dataDir));
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout.trim())).toMatchObject({ request_id: 'req_server_1' });

    // Written by nothing but close.
    for (let i = 2; i <= 400; i++) server.audit.record(entry({ requestId: `req_server_${i}`, accountId: 'acc_served' }));
    await server.close();
    const store = await openStore({ dataDir, readConnections: 1 });
    try {
      expect(Number((await store.read("SELECT count(*) AS n FROM assessments WHERE account_id = 'acc_served'"))[0]!.n)).toBe(400);
    } finally {
      await store.close();
    }
  });
});
