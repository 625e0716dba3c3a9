// `npm run bench -- api` (bench/api.ts) at a tiny size: every phase runs against a real server in
// a child process and reports its figures, so CI catches a broken bench. No timing is asserted.
import { describe, expect, it } from 'vitest';
import { apiBenchSettings, benchApi } from '../bench/api.ts';

describe('bench api', () => {
  it('runs every phase over a tiny scored data set and reports each figure', async () => {
    const settings = apiBenchSettings({
      BENCH_API_ADDRESSES: '2000',
      BENCH_API_TRANSFERS: '20000',
      BENCH_API_AGENTS: '50',
      BENCH_API_POOL: '300',
      BENCH_API_UNCACHED_POOL: '1500',
      BENCH_API_SECONDS: '1',
      BENCH_API_CONNECTIONS: '2',
      // As many as the bench's default: on a fast day the cached phase answered 52,000 requests in
      // its second, more than 1,000 keys' 40 requests/s each.
      BENCH_API_KEYS: '3000',
    });
    const result = await benchApi(settings);
    expect(result.scored_addresses).toBeGreaterThan(1900);
    for (const phase of ['bare', 'bare_record', 'cached', 'uncached', 'agents']) {
      expect(result[`${phase}_rps`], phase).toBeGreaterThan(0);
      expect(result[`${phase}_p99_ms`], phase).toBeGreaterThanOrEqual(result[`${phase}_p50_ms`]!);
    }
    expect(result.query_loop_rps).toBeGreaterThan(0);
    // The cached phase is served from the cache it warmed: every request a hit.
    expect(result.cache_hits_per_request_cached_phase).toBeGreaterThanOrEqual(1);
    // ... answered by the hot path rather than Koa.
    expect(result.hot_path_answers_per_request_cached_phase).toBeGreaterThanOrEqual(1);
    expect(result.cache_entries).toBe(300);
    expect(result.server_rss_after_warm_mib).toBeGreaterThan(0);
  }, 180_000);
});
