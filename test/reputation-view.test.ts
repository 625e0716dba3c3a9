// The 2.8 view's clock-dependent factors and its decision (api/reputation/view.ts), at their
// boundaries (docs/scoring.md, "The view variant"): recency over 90 days, tenure over 365, the
// reasons' thresholds (30 and 90 days, 3 counterparties) and what allows.
import { describe, expect, it } from 'vitest';
import { viewRecord, type Grade, type ViewFacts } from '../api/reputation/view.ts';

const now = new Date('2026-06-30T12:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();
const run = { runId: 7, modelVersion: 'v1', scoredAt: '2026-06-30T11:00:00Z', tokenCursors: new Map([['base', 123]]) };

interface Case {
  grade?: Grade | null;
  transactions?: number;
  counterparties?: number;
  lastSeenDaysAgo?: number | null;
  firstSeenDaysAgo?: number | null;
  policy?: { min_grade: Grade; min_transactions: number };
}

function full(c: Case) {
  const last = c.lastSeenDaysAgo === undefined ? 1 : c.lastSeenDaysAgo;
  const first = c.firstSeenDaysAgo === undefined ? 200 : c.firstSeenDaysAgo;
  const facts: ViewFacts = {
    best_chain: 'base',
    views: [{
      chain: null,
      metrics: {
        total_transactions: c.transactions ?? 20,
        unique_counterparties: c.counterparties ?? 5,
        total_volume_usdc: 40,
        first_seen: first === null ? null : daysAgo(first),
        last_seen: last === null ? null : daysAgo(last),
        active_days: 12,
        active_months: 3,
      },
      factors: { volume: 1.2, diversity: 10, consistency: 35 },
      identity: null,
    }],
  };
  const grade = c.grade === undefined ? 'C' : c.grade;
  const score = { value: grade === null ? null : 60, grade };
  return viewRecord('0x' + '1'.repeat(40), score, facts, run, {
    view: 'full',
    policy: c.policy ?? { min_grade: 'C', min_transactions: 10 },
    now,
    tier: 'growth',
    cacheTtlSeconds: 60,
    verificationLevel: 'none',
  }) as ReturnType<typeof viewRecord> & { decision: { allow: boolean; reasons: string[] }; factors: Record<string, { score: number; weight: number; raw: Record<string, unknown> }> };
}

describe('the view variant: clock-dependent factors', () => {
  it.each([
    [0, 100],
    [45, 50],
    [89, 1.1],
    [90, 0],
    [400, 0],
    [null, 0],
  ])('recency: last payment %s days ago scores %s (100 × max(0, 1 − days / 90))', (days, expected) => {
    const { factors } = full({ lastSeenDaysAgo: days });
    expect(factors.recency).toEqual({ score: expected, weight: 0.15, raw: { last_seen: days === null ? null : daysAgo(days), days_since_last_seen: days } });
  });

  it.each([
    [0, 0],
    [73, 20],
    [364, 99.7],
    [365, 100],
    [1_000, 100],
  ])('tenure: first payment %s days ago scores %s (100 × min(1, days / 365))', (days, expected) => {
    const record = full({ firstSeenDaysAgo: days });
    expect(record.factors.tenure).toEqual({ score: expected, weight: 0.15, raw: { first_seen: daysAgo(days), tenure_days: days } });
    expect(record.highlights.tenure_days).toBe(days);
  });

  it('days are whole days elapsed (a payment 23 h ago is 0 days ago)', () => {
    const record = full({ lastSeenDaysAgo: 23 / 24, firstSeenDaysAgo: 364.99 });
    expect(record.factors.recency.raw.days_since_last_seen).toBe(0);
    expect(record.factors.tenure.raw.tenure_days).toBe(364);
  });

  it('a payment after the request time (the clock behind the data) is 0 days ago, never fewer', () => {
    const record = full({ lastSeenDaysAgo: -2, firstSeenDaysAgo: -3 });
    expect(record.factors.recency).toMatchObject({ score: 100, raw: { days_since_last_seen: 0 } });
    expect(record.factors.tenure).toMatchObject({ score: 0, raw: { tenure_days: 0 } });
    expect(record.highlights.tenure_days).toBe(0);
    expect(record.decision.reasons).toContain('recent_activity');
  });

  it('no payment: recency and tenure score 0, with no days since the last payment and 0 days of tenure', () => {
    const record = full({ grade: 'F', transactions: 0, counterparties: 0, lastSeenDaysAgo: null, firstSeenDaysAgo: null });
    expect(record.factors.recency).toEqual({ score: 0, weight: 0.15, raw: { last_seen: null, days_since_last_seen: null } });
    expect(record.factors.tenure).toEqual({ score: 0, weight: 0.15, raw: { first_seen: null, tenure_days: 0 } });
    expect(record.highlights).toMatchObject({ last_seen: null, tenure_days: 0 });
  });

  it('weights: volume 0.25, diversity 0.25, consistency 0.2, recency 0.15, tenure 0.15; the stored factors pass through', () => {
    const { factors } = full({});
    expect(Object.fromEntries(Object.entries(factors).map(([name, f]) => [name, f.weight]))).toEqual({ volume: 0.25, diversity: 0.25, consistency: 0.2, recency: 0.15, tenure: 0.15 });
    expect([factors.volume.score, factors.diversity.score, factors.consistency.score]).toEqual([1.2, 10, 35]);
  });
});

describe('the view variant: decision', () => {
  it.each<[string, Case, boolean, string[]]>([
    ['the defaults met exactly', { grade: 'C', transactions: 10 }, true, ['sufficient_transaction_history', 'recent_activity', 'counterparty_diversity_ok']],
    ['one payment short', { grade: 'C', transactions: 9 }, false, ['below_min_transactions', 'recent_activity', 'counterparty_diversity_ok']],
    ['a grade below min_grade', { grade: 'D', transactions: 50 }, false, ['sufficient_transaction_history', 'recent_activity', 'counterparty_diversity_ok', 'grade_below_threshold']],
    ['a grade above min_grade', { grade: 'A', transactions: 50, policy: { min_grade: 'B', min_transactions: 10 } }, true, ['sufficient_transaction_history', 'recent_activity', 'counterparty_diversity_ok']],
    ['min_grade F and min_transactions 0 still need a payment', { grade: 'F', transactions: 0, counterparties: 0, lastSeenDaysAgo: null, firstSeenDaysAgo: null, policy: { min_grade: 'F', min_transactions: 0 } }, false, ['insufficient_activity']],
    ['no grade (known_unscored)', { grade: null, transactions: 0, counterparties: 0, lastSeenDaysAgo: null, firstSeenDaysAgo: null }, false, ['insufficient_activity']],
    ['a last payment 30 days ago is recent', { lastSeenDaysAgo: 30 }, true, ['sufficient_transaction_history', 'recent_activity', 'counterparty_diversity_ok']],
    ['31 days ago is neither recent nor stale', { lastSeenDaysAgo: 31 }, true, ['sufficient_transaction_history', 'counterparty_diversity_ok']],
    ['90 days ago is not stale yet', { lastSeenDaysAgo: 90 }, true, ['sufficient_transaction_history', 'counterparty_diversity_ok']],
    ['91 days ago is stale (informs, does not deny)', { lastSeenDaysAgo: 91 }, true, ['sufficient_transaction_history', 'stale_activity', 'counterparty_diversity_ok']],
    ['3 counterparties are diverse', { counterparties: 3 }, true, ['sufficient_transaction_history', 'recent_activity', 'counterparty_diversity_ok']],
    ['2 counterparties are low diversity (informs, does not deny)', { counterparties: 2 }, true, ['sufficient_transaction_history', 'recent_activity', 'low_diversity']],
  ])('%s', (_name, c, allow, reasons) => {
    const record = full(c);
    expect(record.decision).toEqual({ allow, reasons, policy: c.policy ?? { min_grade: 'C', min_transactions: 10 } });
    expect(record.preview).toEqual({ allow_hint: allow, grade_hint: c.grade === undefined ? 'C' : c.grade });
  });
});
