// GET /health: free, no key. 200 when the database answers, 503 otherwise; reports the newest
// scoring run and its age so a monitor can alert on a stalled pipeline.
import type Router from '@koa/router';
import type { Store } from '../../pipeline/store/store.ts';

export function healthRoutes(router: Router, deps: { store: Store; startedAt: Date }): void {
  router.get('/health', async (ctx) => {
    let database: 'ok' | 'error' = 'ok';
    let lastRun: { run_id: number; scored_at: string; age_seconds: number } | null = null;
    try {
      const [row] = await deps.store.read(
        `SELECT run_id, strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS scored_at FROM scoring_runs ORDER BY run_id DESC LIMIT 1`,
      );
      if (row) {
        const scoredAt = String(row.scored_at);
        lastRun = { run_id: Number(row.run_id), scored_at: scoredAt, age_seconds: Math.round((Date.now() - Date.parse(scoredAt)) / 1000) };
      }
    } catch {
      database = 'error';
    }
    ctx.status = database === 'ok' ? 200 : 503;
    ctx.body = {
      status: database === 'ok' ? 'ok' : 'unhealthy',
      database,
      last_scoring_run: lastRun,
      uptime_seconds: Math.round((Date.now() - deps.startedAt.getTime()) / 1000),
    };
  });
}
