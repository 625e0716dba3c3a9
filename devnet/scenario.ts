// A small, fixed set of payments on a fresh devnet, with the ground truth it creates, for the
// end-to-end test and the demo. One merchant gets many verified payments from distinct payers
// over many days, another gets a single one, so their scores must differ.
import { keccak256, parseUnits, stringToBytes, type Address, type Hash } from 'viem';
import { devnetClients } from './clients.ts';
import type { Devnet } from './index.ts';
import { tallyPayments, type AddressTruth } from './payment-tally.ts';
import { payWithAuthorization, plainTransfer, type SentTransaction } from './x402.ts';

export type { AddressTruth };

// Roles, as indexes into devnet.accounts (account 0 deployed the token).
const PAYERS = [1, 2, 3, 4, 5, 6] as const;
const HEAVY_MERCHANT = 7;
const MERCHANT = 8;
const LIGHT_MERCHANT = 9;
/** Submits authorizations but is not a known facilitator: its payments are only candidates. */
const OUTSIDER = 10;
/** Only ever receives a plain transfer: no x402 activity at all. */
const BYSTANDER = 11;

type Submitter = 0 | 1 | 2 | 'outsider'; // index into devnet.facilitators, or OUTSIDER

interface PlannedPayment {
  day: number;
  payer: number;
  payee: number;
  usdc: string;
  via: Submitter;
}

const PAYMENTS: PlannedPayment[] = [
  { day: 0, payer: 1, payee: HEAVY_MERCHANT, usdc: '1.50', via: 0 },
  { day: 0, payer: 2, payee: HEAVY_MERCHANT, usdc: '0.25', via: 1 },
  { day: 0, payer: 3, payee: MERCHANT, usdc: '2.00', via: 2 },
  { day: 1, payer: 4, payee: HEAVY_MERCHANT, usdc: '0.75', via: 0 },
  { day: 1, payer: 1, payee: MERCHANT, usdc: '3.10', via: 1 },
  { day: 2, payer: 5, payee: HEAVY_MERCHANT, usdc: '1.00', via: 2 },
  { day: 2, payer: 2, payee: MERCHANT, usdc: '0.40', via: 0 },
  { day: 2, payer: 6, payee: HEAVY_MERCHANT, usdc: '5.00', via: 1 },
  { day: 3, payer: 5, payee: MERCHANT, usdc: '9.99', via: 'outsider' },
  { day: 4, payer: 3, payee: HEAVY_MERCHANT, usdc: '0.10', via: 0 },
  { day: 4, payer: 1, payee: HEAVY_MERCHANT, usdc: '1.50', via: 2 },
  // Payer to payer, so one address is on both sides.
  { day: 5, payer: 2, payee: 6, usdc: '4.20', via: 'outsider' },
  { day: 6, payer: 6, payee: HEAVY_MERCHANT, usdc: '2.25', via: 1 },
  { day: 6, payer: 4, payee: LIGHT_MERCHANT, usdc: '0.05', via: 0 },
];

const PLAIN_TRANSFERS = [
  { day: 3, from: 1, to: MERCHANT, usdc: '7.00' },
  { day: 5, from: 2, to: BYSTANDER, usdc: '12.34' },
];

const DAY_SECONDS = 86_400;

export interface ScenarioPayment {
  txHash: Hash;
  blockNumber: bigint;
  timestamp: bigint;
  from: Address;
  to: Address;
  value: bigint;
  /** The transaction sender: the facilitator, or the outsider. */
  submitter: Address;
  verified: boolean;
}

export interface ScenarioTransfer {
  txHash: Hash;
  blockNumber: bigint;
  from: Address;
  to: Address;
  value: bigint;
}

export interface ThinScenario {
  roles: {
    payers: Address[];
    heavyMerchant: Address;
    merchant: Address;
    lightMerchant: Address;
    outsider: Address;
    bystander: Address;
  };
  /** Keyed by lowercase address; only addresses with x402 payments. */
  addresses: Record<Address, AddressTruth>;
  payments: ScenarioPayment[];
  plainTransfers: ScenarioTransfer[];
}

/** All addresses in the result are lowercase. */
export async function runThinScenario(devnet: Devnet): Promise<ThinScenario> {
  const { publicClient, walletClient, testClient } = devnetClients(devnet);
  const account = (index: number) => devnet.accounts[index]!;
  const lower = (index: number) => account(index).address.toLowerCase() as Address;
  const token = devnet.token.address;

  // Every payment and transfer, in day order, so the clock only moves forward.
  const steps = [
    ...PAYMENTS.map((payment, i) => ({ day: payment.day, payment, i })),
    ...PLAIN_TRANSFERS.map((transfer) => ({ day: transfer.day, transfer })),
  ].sort((a, b) => a.day - b.day);

  const payments: ScenarioPayment[] = [];
  const plainTransfers: ScenarioTransfer[] = [];
  let today = 0;
  for (const step of steps) {
    if (step.day > today) {
      await testClient.increaseTime({ seconds: (step.day - today) * DAY_SECONDS });
      // Mine, so the latest block carries the new time the next authorization's window is based on.
      await testClient.mine({ blocks: 1 });
      today = step.day;
    }
    if ('payment' in step) {
      const { payer, payee, usdc, via } = step.payment;
      const submitter = via === 'outsider' ? account(OUTSIDER).address : devnet.facilitators[via]!;
      const value = parseUnits(usdc, 6);
      const sent = await payWithAuthorization({
        publicClient,
        walletClient,
        token,
        payer: account(payer),
        to: account(payee).address,
        value,
        facilitator: submitter,
        // Fixed nonces, with the node's fixed block times, make the transaction hashes
        // reproducible for a given genesis time.
        nonce: keccak256(stringToBytes(`thin-scenario:${step.i}`)),
      });
      payments.push({
        ...sent,
        timestamp: await blockTimestamp(sent),
        from: lower(payer),
        to: lower(payee),
        value,
        submitter: submitter.toLowerCase() as Address,
        verified: via !== 'outsider',
      });
    } else {
      const { from, to, usdc } = step.transfer;
      const value = parseUnits(usdc, 6);
      const sent = await plainTransfer({ publicClient, walletClient, token, from: account(from), to: account(to).address, value });
      plainTransfers.push({ ...sent, from: lower(from), to: lower(to), value });
    }
  }

  async function blockTimestamp({ blockNumber }: SentTransaction): Promise<bigint> {
    return (await publicClient.getBlock({ blockNumber })).timestamp;
  }

  return {
    roles: {
      payers: PAYERS.map(lower),
      heavyMerchant: lower(HEAVY_MERCHANT),
      merchant: lower(MERCHANT),
      lightMerchant: lower(LIGHT_MERCHANT),
      outsider: lower(OUTSIDER),
      bystander: lower(BYSTANDER),
    },
    addresses: tallyPayments(payments),
    payments,
    plainTransfers,
  };
}
