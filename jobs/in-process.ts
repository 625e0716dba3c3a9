// The runner used without REDIS_URL: ingest every configured chain, then rescore, every
// `ingestIntervalSeconds`, one round at a time (a slow round delays the next, never overlaps it).
import type { JobDeps } from './handlers.ts';
import { ingestJob, scoreJob } from './handlers.ts';

export interface InProcessScheduler {
  /** Runs one ingest+score round now. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export function startInProcessScheduler(deps: JobDeps): InProcessScheduler {
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<void> = Promise.resolve();
  let stopped = false;

  const round = async () => {
    try {
      if (Object.keys(deps.config.chains).length > 0) await ingestJob(deps, {});
      await scoreJob(deps);
    } catch (err) {
      deps.log.error('scheduled round failed', { error: (err as Error).message });
    }
  };
  const runOnce = () => (current = current.then(round));
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void runOnce().then(schedule), deps.config.ingestIntervalSeconds * 1000);
    timer.unref();
  };
  schedule();

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
