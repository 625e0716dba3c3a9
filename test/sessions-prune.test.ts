// The prune-sessions job: verification sessions nobody completed (pending, failed) are deleted
// SESSION_RETENTION_DAYS past their expiry; verified, consumed and flagged ones stay (tokens and
// reviews point at them). Sessions made over real HTTP and completed on the real verify page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { defaultSchedules } from '../jobs/definitions.ts';
import { runHandler } from '../jobs/handlers.ts';
import { pruneSessions } from '../identity/sessions.ts';
import { tempDataDir } from './helpers/temp.ts';
import { clearPerson, newSession, poll, sdnTinyCsv, submitSandbox } from './helpers/identity.ts';

const day = 86_400_000;

describe('prune-sessions', () => {
  const dataDir = tempDataDir('sessions-prune');
  let server: RunningServer;
  let clock = Date.parse('2026-06-01T12:00:00Z');
  let key: string;
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv, SESSION_RETENTION_DAYS: '30' });

  beforeAll(async () => {
    server = await startServer(config, silentLogger, { now: () => new Date(clock) });
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    key = (await createAccount(server.store, { plan: 'pro', name: 'Prune Shop' }, server.keys)).api_key;
  });
  afterAll(() => server?.close());

  const statuses = async () => Object.fromEntries((await server.store.read('SELECT id, status FROM verification_sessions')).map((r) => [r.id, r.status]));

  it('deletes pending and failed sessions past the retention after their expiry, and keeps completed ones', async () => {
    // A context makes POST /v1/sessions write the session at once: a pending row. (One without is
    // minted and written only once its page is used, as `failed` below.)
    const pending = await newSession(server.url, key, { context: 'prune test' });
    const failed = await newSession(server.url, key);
    await submitSandbox(failed.verify_url, { outcome: 'failed' });
    const verified = await newSession(server.url, key);
    await submitSandbox(verified.verify_url, clearPerson);
    const consumed = await newSession(server.url, key);
    await submitSandbox(consumed.verify_url, clearPerson);
    expect((await poll(consumed.poll_url, consumed.poll_secret)).body.status).toBe('verified');
    const flagged = await newSession(server.url, key);
    await submitSandbox(flagged.verify_url, { ...clearPerson, name: 'Daniel Moreno' });
    expect(await statuses()).toEqual({ [pending.session_id]: 'pending', [failed.session_id]: 'failed', [verified.session_id]: 'verified', [consumed.session_id]: 'consumed', [flagged.session_id]: 'flagged' });

    // They expire an hour after creation: 30 days past that is the edge.
    const expiry = clock + 3_600_000;
    expect((await pruneSessions(server.store, 30, new Date(expiry + 30 * day))).deleted).toBe(0);
    expect(await pruneSessions(server.store, 30, new Date(expiry + 30 * day + 1_000))).toEqual({ deleted: 2, webhookEvents: 0, cutoff: new Date(expiry + 1_000).toISOString() });
    expect(await statuses()).toEqual({ [verified.session_id]: 'verified', [consumed.session_id]: 'consumed', [flagged.session_id]: 'flagged' });
    // A pruned session is unknown: the poll's one answer for a wrong secret or an unknown session.
    expect((await poll(pending.poll_url, pending.poll_secret)).body.error.code).toBe((await poll(pending.poll_url, "pls_wrong")).body.error.code);
    // A minted session whose row is pruned reads as minted again, past its hour: expired, not unknown.
    const created = clock;
    clock = expiry + 30 * day + 1_000;
    expect((await poll(failed.poll_url, failed.poll_secret)).body.status).toBe('expired');
    clock = created;

    // The job: SESSION_RETENTION_DAYS from the config, the real clock (months after this test's), the count as its result.
    const young = await newSession(server.url, key, { context: 'prune test' });
    const result = (await runHandler({ store: server.store, config, log: silentLogger }, 'prune-sessions', {})) as { deleted: number };
    expect(result.deleted).toBe(1);
    expect(await statuses()).not.toHaveProperty(young.session_id);
  });

  it('runs daily by default; SESSION_RETENTION_DAYS is 1-3650, 30 by default', () => {
    expect(defaultSchedules(loadConfig({ DATA_DIR: '/unused' })).filter((s) => s.jobName === 'prune-sessions')).toEqual([
      { scheduleId: 'prune-sessions', jobName: 'prune-sessions', jobData: {}, everySeconds: 86_400 },
    ]);
    expect(loadConfig({ DATA_DIR: '/unused' }).sessionRetentionDays).toBe(30);
    expect(() => loadConfig({ DATA_DIR: '/unused', SESSION_RETENTION_DAYS: '0' })).toThrow(/SESSION_RETENTION_DAYS: must be at least 1/);
    expect(() => loadConfig({ DATA_DIR: '/unused', SESSION_RETENTION_DAYS: '3651' })).toThrow(/SESSION_RETENTION_DAYS: must be at most 3650/);
  });
});
