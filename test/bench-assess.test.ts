// `npm run bench -- assess` (bench/assess.ts) at a tiny size: assess under a running scoring job,
// the bare Koa baseline, live and test-mode assess all run and report their figures, so CI
// catches a broken bench. No rate is asserted; what the bench itself guarantees is: every request
// answered 200, no rescoring queued by the load, the scoring run still in flight after the window
// and a main-writer write held for the whole window.
import { describe, expect, it } from 'vitest';
import { assessBenchSettings, benchAssess } from '../bench/assess.ts';

describe('bench assess', () => {
  it('measures assess with a policy and a signer, live, in test mode and under a scoring run, against the bare Koa route', async () => {
    const settings = {
      ...assessBenchSettings({
        BENCH_ASSESS_ADDRESSES: '10001',
        BENCH_ASSESS_TRANSFERS: '100000',
        BENCH_ASSESS_AGENTS: '200',
        BENCH_ASSESS_CONNECTIONS: '4',
        // Scale keys take 40 a second each: on a fast day the live phase passes 3,000 requests a second.
        BENCH_ASSESS_KEYS: '200',
        BENCH_ASSESS_OPERATORS: '2',
        BENCH_ASSESS_UNKNOWN_WALLETS: '2',
      }),
      // Half a second per phase: the first full run over 10,001 addresses lasts longer than that.
      seconds: 0.5,
    };
    const result = await benchAssess(settings);
    for (const figure of ['bare_koa_rps', 'assess_rps', 'assess_test_mode_rps', 'assess_rps_during_scoring', 'ratio', 'ratio_test_mode', 'ratio_during_scoring']) {
      expect(result[figure], figure).toBeGreaterThan(0);
    }
    for (const phase of ['bare_koa', 'assess', 'assess_test_mode']) {
      expect(result[`${phase}_p99_ms`], phase).toBeGreaterThanOrEqual(result[`${phase}_p50_ms`] as number);
      expect(result[`${phase}_cpu_us_per_request`], phase).toBeGreaterThan(0);
    }
    expect(result.assess_p99_ms_during_scoring).toBeGreaterThanOrEqual(result.assess_p50_ms_during_scoring as number);
    expect(result.scoring_in_flight).toBe(true);
    expect(result.main_writer_ms_during_run).toBeGreaterThan(result.window_ms as number);
    expect(result.scored_addresses).toBeGreaterThan(9000);
    // Two operators' 4 wallets each and 2 wallets tied to nobody, each answered once before the load:
    // the unknown ones are denied kyc_required (a session minted each time, none written: nobody
    // opens them), the others allowed.
    expect(result).toMatchObject({ bodies: 10, tied_wallets: 8, bodies_kyc_required: 2, bodies_allow: 8, assess_sessions_written: 0 });
    // Every live answer has its audit record (test mode has none).
    expect(result.audit_records).toBeGreaterThanOrEqual(result.live_answered as number);
  }, 180_000);
});
