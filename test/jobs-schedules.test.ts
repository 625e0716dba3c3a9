// When an in-process schedule is next due (jobs/schedules.ts, jobs/in-process.ts): from the last
// scheduled run of its job and input, whatever the key order of that input's recorded JSON; a
// wait longer than a Node timer's; and no timer left once the runner stops.
import { describe, expect, it, vi } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { jobKey } from '../jobs/definitions.ts';
import { lastScheduledStarts, listSchedules, saveSchedule } from '../jobs/schedules.ts';
import { startInProcessRunner } from '../jobs/in-process.ts';
import { createRunLog } from '../jobs/run-log.ts';
import { blockStore } from './helpers/block-store.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('lastScheduledStarts', () => {
  const store = blockStore('jobs-schedules');

  it('takes the newest run of a job and input whatever the key order of its recorded input', async () => {
    // The same input recorded in both key orders (a schedule re-saved with its --data in another
    // order), the newer run in either of them.
    const runAt = (runId: string, data: string, hoursAgo: number) =>
      store().write((tx) =>
        tx.run(`INSERT INTO job_runs VALUES ($1, 'ingest', $2, 'completed', 'schedule', utc_now() - to_hours($3::BIGINT), NULL, NULL, NULL)`, [runId, data, hoursAgo]),
      );
    const key = jobKey('ingest', { chain: 'base', source: 'token' });
    const newest = async () => ((await lastScheduledStarts(store())).get(key)! - Date.now()) / 3_600_000;
    await runAt('job_a', '{"chain":"base","source":"token"}', 5);
    await runAt('job_b', '{"source":"token","chain":"base"}', 1);
    expect(await newest()).toBeCloseTo(-1, 1);
    await runAt('job_c', '{"chain":"base","source":"token"}', 0);
    expect(await newest()).toBeCloseTo(0, 1);
  });

  it('counts scheduled runs only: a manual run of the same input does not move the schedule', async () => {
    await store().write((tx) =>
      tx.run(`INSERT INTO job_runs VALUES ('job_s', 'score', '{}', 'completed', 'schedule', utc_now() - INTERVAL 3 HOUR, NULL, NULL, NULL),
                                          ('job_m', 'score', '{}', 'completed', 'manual', utc_now(), NULL, NULL, NULL)`),
    );
    const started = (await lastScheduledStarts(store())).get(jobKey('score', {}))!;
    expect((started - Date.now()) / 3_600_000).toBeCloseTo(-3, 1);
  });
});

describe('an in-process schedule that never ran', () => {
  const store = blockStore('jobs-schedules-new');

  it('is due one interval after it was first set, also when another schedule changes meanwhile', async () => {
    const config = loadConfig({ DATA_DIR: tempDataDir('jobs-schedules-new-config'), SCORE_FULL_INTERVAL_SECONDS: '0' });
    for (const s of await listSchedules(store(), config)) await saveSchedule(store(), { ...s, everySeconds: null });
    await saveSchedule(store(), { scheduleId: 'every-3s', jobName: 'score', jobData: {}, everySeconds: 3 });
    const runner = startInProcessRunner({ store: store(), config, log: silentLogger, runs: createRunLog(store()) });
    try {
      const set = Date.now();
      await runner.reloadSchedules();
      await sleep(2400);
      // Another schedule changes (a reload): the first keeps its phase (due 3 s after it was set),
      // where a fresh timer would make it due 3 s after the reload (5.4 s).
      await saveSchedule(store(), { scheduleId: 'other', jobName: 'export', jobData: {}, everySeconds: 3600 });
      await runner.reloadSchedules();
      const ran = async () => (await store().read(`SELECT DISTINCT job_name FROM job_runs`)).map((r) => r.job_name);
      while (Date.now() - set < 5000 && (await ran()).length === 0) await sleep(100);
      expect(await ran()).toEqual(['score']);
    } finally {
      await runner.stop();
    }
  });
});

describe('a stopped in-process runner', () => {
  const store = blockStore('jobs-schedules-stop');
  const errors: string[] = [];
  const log = { ...silentLogger, error: (message: string) => void errors.push(message), child: () => log };

  // A schedule due in a second; past it, a timer left behind would try to start the job and log
  // that the runner is stopping.
  const start = async () => {
    const config = loadConfig({ DATA_DIR: tempDataDir('jobs-schedules-stop-config'), SCORE_FULL_INTERVAL_SECONDS: '0' });
    for (const s of await listSchedules(store(), config)) await saveSchedule(store(), { ...s, everySeconds: null });
    await saveSchedule(store(), { scheduleId: 'every-second', jobName: 'score', jobData: {}, everySeconds: 1 });
    return startInProcessRunner({ store: store(), config, log, runs: createRunLog(store()) });
  };

  it('leaves no timer behind', async () => {
    const runner = await start();
    await runner.reloadSchedules();
    await runner.stop();
    await sleep(1300);
    expect(errors).toEqual([]);
    expect(await store().read(`SELECT run_id FROM job_runs`)).toEqual([]);
  });

  it('sets no timer from a reload that ends after the stop', async () => {
    const runner = await start();
    const reloading = runner.reloadSchedules();
    await runner.stop();
    await reloading;
    await sleep(1300);
    expect(errors).toEqual([]);
  });
});

describe('an in-process schedule longer than a timer can wait', () => {
  const store = blockStore('jobs-schedules-long');

  it('does not run at once: Node fires a timer past 2^31-1 ms after 1 ms', async () => {
    const config = loadConfig({ DATA_DIR: tempDataDir('jobs-schedules-long-config'), SCORE_FULL_INTERVAL_SECONDS: '0' });
    // Only this schedule: every other default removed.
    for (const s of await listSchedules(store(), config)) await saveSchedule(store(), { ...s, everySeconds: null });
    await saveSchedule(store(), { scheduleId: 'monthly-score', jobName: 'score', jobData: {}, everySeconds: 30 * 86_400 });
    const runner = startInProcessRunner({ store: store(), config, log: silentLogger, runs: createRunLog(store()) });
    try {
      await runner.reloadSchedules();
      await sleep(300);
      expect(await store().read(`SELECT run_id FROM job_runs`)).toEqual([]);
    } finally {
      await runner.stop();
    }
  });

  it('runs when its interval has passed, in steps of what a timer can wait', async () => {
    const config = loadConfig({ DATA_DIR: tempDataDir('jobs-schedules-long-config'), SCORE_FULL_INTERVAL_SECONDS: '0' });
    const runs = createRunLog(store());
    const started: string[] = [];
    const runner = startInProcessRunner({ store: store(), config, log: silentLogger, runs: { ...runs, start: async (...args) => (started.push(args[0]), runs.start(...args)) } });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await runner.reloadSchedules();
      await vi.advanceTimersByTimeAsync(30 * 86_400_000 - 1000);
      expect(started).toEqual([]);
      await vi.advanceTimersByTimeAsync(1000);
    } finally {
      vi.useRealTimers();
    }
    for (let i = 0; i < 50 && started.length === 0; i++) await sleep(50);
    await runner.stop();
    expect(started).toEqual(['score']);
  });
});
