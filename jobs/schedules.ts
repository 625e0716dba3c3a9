// Schedules live in the owner's store: the defaults of definitions.ts, overridden by what
// `jobs schedule` recorded (append-only; newest row per schedule wins; NULL every = removed).
import type { Config } from '../pipeline/config.ts';
import type { Store } from '../pipeline/store/store.ts';
import { defaultSchedules, jobKey, type JobData, type JobName, type Schedule } from './definitions.ts';

export async function listSchedules(store: Store, config: Config): Promise<Schedule[]> {
  const rows = await store.read(
    `SELECT schedule_id, job_name, job_data::VARCHAR AS job_data, every_seconds FROM job_schedules
      QUALIFY row_number() OVER (PARTITION BY schedule_id ORDER BY updated_at DESC) = 1`,
  );
  const byId = new Map(defaultSchedules(config).map((s) => [s.scheduleId, s]));
  for (const r of rows) {
    const id = String(r.schedule_id);
    if (r.every_seconds === null) byId.delete(id);
    else byId.set(id, { scheduleId: id, jobName: r.job_name as JobName, jobData: JSON.parse(String(r.job_data)) as JobData, everySeconds: Number(r.every_seconds) });
  }
  return [...byId.values()].sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
}

/** Records a schedule (or its removal, with everySeconds null). */
export async function saveSchedule(store: Store, schedule: Omit<Schedule, 'everySeconds'> & { everySeconds: number | null }): Promise<void> {
  await store.write((tx) =>
    tx.run('INSERT INTO job_schedules VALUES ($1, $2, $3, $4, utc_now())', [schedule.scheduleId, schedule.jobName, JSON.stringify(schedule.jobData), schedule.everySeconds]),
  );
}

/** When the newest scheduled run of each job and input started (epoch ms), by jobKey. */
export async function lastScheduledStarts(store: Store): Promise<Map<string, number>> {
  // Oldest first: one input recorded in two key orders is two groups of JSON text and one jobKey,
  // and the newer group is set last (as `jobs list` finds a schedule's last run).
  const rows = await store.read(
    `SELECT job_name, job_data::VARCHAR AS job_data, epoch_ms(max(started_at)) AS started
       FROM job_runs WHERE trigger = 'schedule' GROUP BY ALL ORDER BY started`,
  );
  return new Map(rows.map((r) => [jobKey(r.job_name as JobName, JSON.parse(String(r.job_data)) as JobData), Number(r.started)]));
}
