// Per-address x402 facts from a list of payments: what ingestion and scoring must reproduce.
import type { Address } from 'viem';

/** x402 totals for one address. `candidate_*` counts every x402 payment; `verified_*` the subset sent by a known facilitator. */
export interface AddressTruth {
  address: Address;
  candidate_as_payer: number;
  candidate_as_payee: number;
  verified_as_payer: number;
  verified_as_payee: number;
  /** Sum over all x402 payments, verified and candidate, in base units. */
  volume_as_payer: bigint;
  volume_as_payee: bigint;
  /** The other side of its x402 payments, sorted. */
  counterparties: Address[];
  /** Distinct UTC dates with an x402 payment. */
  active_days: number;
  /** Distinct UTC months (YYYY-MM) with an x402 payment. */
  active_months: number;
}

export interface TalliedPayment {
  /** Lowercase payer and payee. */
  from: Address;
  to: Address;
  value: bigint;
  verified: boolean;
  /** Block timestamp, unix seconds. */
  timestamp: bigint;
}

/** Keyed by lowercase address; only addresses with x402 payments. */
export function tallyPayments(payments: TalliedPayment[]): Record<Address, AddressTruth> {
  const truths: Record<Address, AddressTruth> = {};
  const counterparties = new Map<Address, Set<Address>>();
  const days = new Map<Address, Set<string>>();
  const entry = (address: Address): AddressTruth =>
    (truths[address] ??= {
      address,
      candidate_as_payer: 0,
      candidate_as_payee: 0,
      verified_as_payer: 0,
      verified_as_payee: 0,
      volume_as_payer: 0n,
      volume_as_payee: 0n,
      counterparties: [],
      active_days: 0,
      active_months: 0,
    });
  const addTo = <T>(map: Map<Address, Set<T>>, address: Address, value: T) => {
    map.set(address, (map.get(address) ?? new Set<T>()).add(value));
  };

  for (const p of payments) {
    const payer = entry(p.from);
    const payee = entry(p.to);
    // Verified payments are the subset of candidates sent by a known facilitator.
    payer.candidate_as_payer++;
    payee.candidate_as_payee++;
    if (p.verified) {
      payer.verified_as_payer++;
      payee.verified_as_payee++;
    }
    payer.volume_as_payer += p.value;
    payee.volume_as_payee += p.value;
    addTo(counterparties, p.from, p.to);
    addTo(counterparties, p.to, p.from);
    const date = new Date(Number(p.timestamp) * 1000).toISOString().slice(0, 10);
    addTo(days, p.from, date);
    addTo(days, p.to, date);
  }
  for (const truth of Object.values(truths)) {
    const dates = days.get(truth.address)!;
    truth.counterparties = [...counterparties.get(truth.address)!].sort();
    truth.active_days = dates.size;
    truth.active_months = new Set([...dates].map((date) => date.slice(0, 7))).size;
  }
  return truths;
}
