// `npm run bench -- capture` (bench/capture.ts) at a tiny size: the baseline, idle captures and
// captures under a running scoring job all run and report their figures, so CI catches a broken
// bench. No rate is asserted; what the bench itself guarantees is: every capture answered 200, the
// scoring run still in flight after the window, and a main-writer write held for the whole window.
import { describe, expect, it } from 'vitest';
import { benchCapture, captureBenchSettings } from '../bench/capture.ts';

describe('bench capture', () => {
  it('measures captures idle and under a scoring run against bare store writes', async () => {
    const settings = {
      ...captureBenchSettings({
        BENCH_CAPTURE_ADDRESSES: '10001',
        BENCH_CAPTURE_TRANSFERS: '100000',
        BENCH_CAPTURE_AGENTS: '200',
        BENCH_CAPTURE_CONNECTIONS: '4',
        BENCH_CAPTURE_WALLETS: '40',
        BENCH_CAPTURE_CREDENTIALS: '2',
      }),
      // Half a second per phase: the first full run over 10,001 addresses lasts longer than that.
      seconds: 0.5,
    };
    const result = await benchCapture(settings);
    for (const figure of ['baseline_writes_per_s', 'captures_per_s_idle', 'captures_per_s', 'ratio', 'ratio_idle']) {
      expect(result[figure], figure).toBeGreaterThan(0);
    }
    expect(result.captures_p99_ms).toBeGreaterThanOrEqual(result.captures_p50_ms as number);
    expect(result.captures_idle_p99_ms).toBeGreaterThanOrEqual(result.captures_idle_p50_ms as number);
    expect(result.baseline_p99_ms).toBeGreaterThanOrEqual(result.baseline_p50_ms as number);
    expect(result.scoring_in_flight).toBe(true);
    // The main writer's probe waited for the run's commit, past the end of the window; the
    // operational writer's did not.
    expect(result.main_writer_ms_during_run).toBeGreaterThan(result.window_ms as number);
    expect(result.operational_writer_ms_during_run).toBeLessThan(result.window_ms as number);
    // Every capture carried a fresh idempotency key: a row each answered one (and any still in
    // flight when a phase ended).
    expect(result.capture_rows).toBeGreaterThanOrEqual(result.captures_answered as number);
  }, 120_000);
});
