// When an in-process schedule is next due (jobs/schedules.ts, jobs/in-process.ts): from the last
// scheduled run of its job and input, whatever the key order of that input's recorded JSON.
import { describe, expect, it } from 'vitest';
import { jobKey } from '../jobs/definitions.ts';
import { lastScheduledStarts } from '../jobs/schedules.ts';
import { blockStore } from './helpers/block-store.ts';

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
});
