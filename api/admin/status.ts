// `reputation status`: what an operator of the service checks first, on one screen: how fresh the
// scores and the ingested chains are, how current the sanctions list is (assess fails closed on
// an old one), who waits for a review of their verification, and which jobs failed. `attention`
// says in words what needs a person, with the command that shows more; nothing there means
// nothing does. Runs in the server (through the admin endpoint) or in the CLI, as every operation.
import type { Store } from '../../pipeline/store/store.ts';
import type { Config } from '../../pipeline/config.ts';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import type { Row } from '../../pipeline/store/rows.ts';
import { at as timestampOf } from '../../identity/store-values.ts';
import { duration } from '../../pipeline/duration.ts';

export interface ServiceStatus {
  checked_at: string;
  /** Whether a `reputation serve` answered (false: the CLI read the database itself). */
  server_running: boolean;
  scoring: { last_run_id: number | null; last_run_kind: string | null; last_scored_at: string | null; age_seconds: number | null; stale: boolean | null };
  ingest: { chain: string; source: string; block: number; recorded_at: string; age_seconds: number }[];
  sanctions: {
    list_loaded_at: string | null;
    list_checked_at: string | null;
    list_age_hours: number | null;
    max_age_hours: number;
    listed_addresses: number | null;
    names_loaded_at: string | null;
    listed_names: number | null;
    listed_births: number | null;
  };
  identity: { operators: number; flagged_waiting: number; oldest_flagged_at: string | null; active_tokens: number };
  jobs: { running: number; failed_24h: number; recent_failures: Row[] };
  attention: string[];
}

export async function serviceStatus(store: Store, config: Config, now: Date, serverRunning: boolean): Promise<ServiceStatus> {
  const at = timestampOf(now);
  const [[o], cursors, failures] = await Promise.all([
    store.read(sqlFile('status/overview'), [at]),
    store.read(sqlFile('status/ingest_cursors')),
    store.read(sqlFile('status/recent_failures'), [at]),
  ]);
  const row = o!;
  const secondsSince = (iso: unknown) => (typeof iso === 'string' ? Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000)) : null);
  const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const scoredAge = secondsSince(row.last_scored_at);
  const listAge = secondsSince(row.list_checked_at);
  const status: ServiceStatus = {
    checked_at: now.toISOString(),
    server_running: serverRunning,
    scoring: {
      last_run_id: numberOrNull(row.last_run_id),
      last_run_kind: (row.last_run_kind as string | null) ?? null,
      last_scored_at: (row.last_scored_at as string | null) ?? null,
      age_seconds: scoredAge,
      stale: scoredAge === null ? null : scoredAge > config.staleAfterSeconds,
    },
    ingest: cursors.map((c) => ({
      chain: String(c.chain),
      source: String(c.source),
      block: Number(c.block_number),
      recorded_at: String(c.recorded_at),
      age_seconds: secondsSince(c.recorded_at)!,
    })),
    sanctions: {
      list_loaded_at: (row.list_loaded_at as string | null) ?? null,
      list_checked_at: (row.list_checked_at as string | null) ?? null,
      list_age_hours: listAge === null ? null : Math.round((listAge / 3600) * 10) / 10,
      max_age_hours: config.sanctionsListMaxAgeHours,
      listed_addresses: numberOrNull(row.listed_addresses),
      names_loaded_at: (row.names_loaded_at as string | null) ?? null,
      listed_names: numberOrNull(row.listed_names),
      listed_births: numberOrNull(row.listed_births),
    },
    identity: {
      operators: Number(row.operators),
      flagged_waiting: Number(row.flagged_waiting),
      oldest_flagged_at: (row.oldest_flagged_at as string | null) ?? null,
      active_tokens: Number(row.active_tokens),
    },
    jobs: { running: Number(row.jobs_running), failed_24h: Number(row.jobs_failed_24h), recent_failures: failures },
    attention: [],
  };
  status.attention = attention(status, config, listAge);
  return status;
}

// `listAgeSeconds` to the second (list_age_hours is rounded to tenths of hours for reading).
function attention(s: ServiceStatus, config: Config, listAgeSeconds: number | null): string[] {
  const out: string[] = [];
  if (s.scoring.last_run_id === null) out.push('no scoring run yet: every lookup answers unknown; run `reputation score`');
  else if (s.scoring.stale) {
    out.push(`the newest scoring run is ${duration(s.scoring.age_seconds!)} old, over STALE_AFTER_SECONDS (${duration(config.staleAfterSeconds)}): records answer stale; see \`reputation jobs status\``);
  }
  if (s.sanctions.list_checked_at === null) {
    out.push('no sanctions list loaded: assess denies every signer check with sanctions_check_unavailable; set SANCTIONS_LIST_SOURCE and run `reputation jobs run refresh-sanctions-list`');
  } else if (listAgeSeconds! > s.sanctions.max_age_hours * 3600) {
    out.push(
      `the sanctions list was last confirmed ${duration(s.sanctions.list_age_hours! * 3600)} ago, over SANCTIONS_LIST_MAX_AGE_HOURS (${s.sanctions.max_age_hours} h): ` +
        'assess denies signer checks with sanctions_check_unavailable; run `reputation jobs run refresh-sanctions-list`',
    );
  }
  if (s.sanctions.names_loaded_at === null) {
    out.push('no SDN names loaded: every verification is flagged for a review (name screening unavailable); set SANCTIONS_NAMES_SOURCE or an sdn.csv/sdn_advanced.xml list source');
  } else if (s.sanctions.listed_births === null) {
    out.push('the SDN names were loaded before dates of birth were read: the next `refresh-sanctions-list` reads them (docs/screening.md)');
  }
  if (s.identity.flagged_waiting > 0) {
    out.push(
      `${s.identity.flagged_waiting} verification ${s.identity.flagged_waiting === 1 ? 'session waits' : 'sessions wait'} for a review (the oldest since ${s.identity.oldest_flagged_at}): ` +
        '`reputation operators flagged`, then `reputation operators review SESSION --clear|--confirm`',
    );
  }
  if (s.jobs.failed_24h > 0) {
    const newest = s.jobs.recent_failures[0];
    const what = newest ? ` (the newest: ${String(newest.job_name)} at ${String(newest.finished_at)}: ${firstLine(newest.error)})` : '';
    out.push(`${s.jobs.failed_24h} job ${s.jobs.failed_24h === 1 ? 'run' : 'runs'} failed in the last 24 h${what}: \`reputation jobs status\``);
  }
  return out;
}

function firstLine(value: unknown): string {
  const text = String(value ?? '').split('\n')[0]!;
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
