// The ground truth of a simulation: everything it did, in the form ingestion is compared against.
// Plain JSON (amounts in base units as decimal strings, addresses lowercase), so the object
// `simulate` returns and the file it writes are the same thing.
import type { Address, Hex } from 'viem';
import type { Devnet } from './index.ts';
import { tallyPayments, type AddressTruth } from './payment-tally.ts';
import { summarize, type RegistrationFile, type RegistrationSummary, type UriKind } from './registration-files.ts';
import type { SimulationPlan } from './simulate-plan.ts';
import type { RunResult } from './simulate-run.ts';

/** An address's x402 facts (see payment-tally.ts), volumes as decimal strings. */
export type AddressFacts = Omit<AddressTruth, 'address' | 'volume_as_payer' | 'volume_as_payee'> & {
  volume_as_payer: string;
  volume_as_payee: string;
};

export interface AgentTruth {
  agentId: number;
  /** Current owner. */
  owner: Address;
  /** Current agentURI (tokenURI). */
  agentURI: string;
  uriKind: UriKind;
  /** False for an https URL that answers 404 or an HTML page instead of a registration file. */
  resolvable: boolean;
  /** The reserved agentWallet metadata: the owner at registration, a verified wallet after setAgentWallet, null once a transfer cleared it. */
  agentWallet: Address | null;
  /** Where its x402 payments go: agentWallet, or the owner when unset. */
  paymentWallet: Address;
  registrationBlock: number;
  /** The registration file the URI resolves to, exactly as published; null when not resolvable. */
  file: RegistrationFile | null;
  /** What a reader of `file` should find; null when not resolvable. */
  expected: RegistrationSummary | null;
  /** Extra on-chain metadata set at registration (key to hex value); agentWallet is not in it. */
  metadata: Record<string, Hex>;
  /** URIUpdated events (setAgentURI calls). */
  uriUpdates: number;
  /** ERC-721 transfers after the mint. */
  transfers: number;
}

export interface FeedbackTruth {
  agentId: number;
  client: Address;
  feedbackIndex: number;
  value: number;
  valueDecimals: number;
  tag1: string;
  tag2: string;
  endpoint: string;
  feedbackURI: string;
  feedbackHash: Hex;
  revoked: boolean;
  /** From a sybil address: funded with ETH only, never paid anyone. */
  sybil: boolean;
  blockNumber: number;
}

export interface ResponseTruth {
  agentId: number;
  client: Address;
  feedbackIndex: number;
  responder: Address;
  responseURI: string;
  responseHash: Hex;
  blockNumber: number;
}

export interface AgentTransferTruth {
  agentId: number;
  from: Address;
  to: Address;
  blockNumber: number;
}

export interface SimulationTruth {
  seed: string;
  chainId: number;
  contracts: { token: Address; identityRegistry: Address; reputationRegistry: Address };
  registrationBaseUrl: string;
  /** Blocks the simulation mined, first to last; the devnet's own deployment and mints come before. */
  blocks: { first: number; last: number };
  /** UTC dates of the first and last simulated block. */
  period: { from: string; to: string };
  totals: {
    /** Every x402 payment (AuthorizationUsed + Transfer in one transaction). */
    candidate: number;
    /** The subset sent by a known facilitator. */
    verified: number;
    /** ERC-20 transfers signed by the holder: a Transfer log without an authorization. */
    plainTransfers: number;
    /** USDC minted to payers by the simulation. */
    mints: number;
    /** Token Transfer logs the simulation emitted: mints + candidate + plainTransfers. */
    tokenTransferLogs: number;
    agents: number;
    uriUpdates: number;
    /** setAgentWallet calls. */
    agentWalletsSet: number;
    agentTransfers: number;
    /** MetadataSet logs: one per registration, one per extra entry, setAgentWallet, and the clearing on each transfer. */
    metadataSetLogs: number;
    feedback: number;
    sybilFeedback: number;
    revoked: number;
    responses: number;
  };
  /** x402 facts by lowercase address; only addresses with x402 payments. */
  addresses: Record<Address, AddressFacts>;
  /** Final USDC balance (base units) of every simulated address that ever held USDC. */
  balances: Record<Address, string>;
  agents: AgentTruth[];
  feedback: FeedbackTruth[];
  responses: ResponseTruth[];
  agentTransfers: AgentTransferTruth[];
  /** Every operator and the agentIds it owns at the end (possibly none, after transfers). */
  operators: Record<Address, number[]>;
  roles: {
    /** Known facilitators that submitted payments. */
    facilitators: Address[];
    /** Submits x402 payments but is not a known facilitator: its payments are candidates only. */
    outsider: Address;
    buyers: Address[];
    merchants: Address[];
    /** Only ever receive plain transfers. */
    bystanders: Address[];
    sybils: Address[];
    /** Sends the sybils their ETH. */
    sybilFunder: Address;
    /** Responds to sybil feedback, flagging it. */
    watchdog: Address;
    /** The agentIds the sybils rate. */
    sybilTargets: number[];
  };
}

const lower = (address: Address) => address.toLowerCase() as Address;
const isoDate = (timestamp: bigint) => new Date(Number(timestamp) * 1000).toISOString().slice(0, 10);

/** The ground truth of a finished run. */
export function groundTruth(devnet: Devnet, plan: SimulationPlan, registrationBaseUrl: string, run: RunResult): SimulationTruth {
  const agentId = (index: number) => run.agents[index]!.agentId;
  const balances = new Map<Address, bigint>();
  const move = (address: Address, delta: bigint) => balances.set(address, (balances.get(address) ?? 0n) + delta);
  for (const { to, value } of run.mints) move(to, value);
  for (const { from, to, value } of [...run.payments, ...run.plainTransfers]) {
    move(from, -value);
    move(to, value);
  }

  const operators: Record<Address, number[]> = Object.fromEntries(run.accounts.operators.map((a) => [lower(a.address), [] as number[]]));
  for (const agent of run.agents) operators[agent.owner]!.push(agent.agentId);
  for (const owned of Object.values(operators)) owned.sort((a, b) => a - b);

  const candidate = run.payments.length;
  const verified = run.payments.filter((p) => p.verified).length;
  const addresses = (accounts: { address: Address }[]) => accounts.map((a) => lower(a.address)).sort();
  return {
    seed: plan.seed,
    chainId: devnet.chainId,
    contracts: {
      token: lower(devnet.token.address),
      identityRegistry: lower(devnet.identityRegistry.address),
      reputationRegistry: lower(devnet.reputationRegistry.address),
    },
    registrationBaseUrl,
    blocks: { first: Number(run.blocks.first), last: Number(run.blocks.last) },
    period: { from: isoDate(run.blocks.firstTimestamp), to: isoDate(run.blocks.lastTimestamp) },
    totals: {
      candidate,
      verified,
      plainTransfers: run.plainTransfers.length,
      mints: run.mints.length,
      tokenTransferLogs: run.mints.length + candidate + run.plainTransfers.length,
      agents: run.agents.length,
      uriUpdates: sum(run.agents.map((a) => a.uriUpdates)),
      agentWalletsSet: run.agents.filter((a) => a.plan.wallet).length,
      agentTransfers: run.agentTransfers.length,
      metadataSetLogs:
        run.agents.length +
        sum(run.agents.map((a) => Object.keys(a.metadata).length)) +
        run.agents.filter((a) => a.plan.wallet).length +
        run.agentTransfers.length,
      feedback: run.feedback.length,
      sybilFeedback: run.feedback.filter((f) => f.sybil).length,
      revoked: run.feedback.filter((f) => f.revoked).length,
      responses: run.responses.length,
    },
    addresses: addressFacts(tallyPayments(run.payments)),
    balances: Object.fromEntries([...balances].map(([address, value]) => [address, value.toString()])),
    agents: [...run.agents]
      .sort((a, b) => a.agentId - b.agentId)
      .map((a) => ({
        agentId: a.agentId,
        owner: a.owner,
        agentURI: a.uri,
        uriKind: a.kind,
        resolvable: a.file !== null,
        agentWallet: a.agentWallet,
        paymentWallet: a.agentWallet ?? a.owner,
        registrationBlock: a.registrationBlock,
        file: a.file,
        expected: a.file && summarize(a.file),
        metadata: a.metadata,
        uriUpdates: a.uriUpdates,
        transfers: a.transfers,
      })),
    feedback: run.feedback.map(({ agent, ...f }) => ({ agentId: agentId(agent), ...f })),
    responses: run.responses.map(({ agent, ...r }) => ({ agentId: agentId(agent), ...r })),
    agentTransfers: run.agentTransfers.map(({ agent, ...t }) => ({ agentId: agentId(agent), ...t })),
    operators,
    roles: {
      facilitators: [...run.facilitatorsUsed].sort(),
      outsider: lower(run.accounts.outsider.address),
      buyers: addresses(run.accounts.payers.slice(0, plan.buyers)),
      merchants: addresses(run.accounts.merchants),
      bystanders: addresses(run.accounts.bystanders),
      sybils: addresses(run.accounts.sybils),
      sybilFunder: lower(run.accounts.sybilFunder.address),
      watchdog: lower(run.accounts.watchdog.address),
      sybilTargets: plan.sybilTargets.map(agentId).sort((a, b) => a - b),
    },
  };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

export function addressFacts(truths: Record<Address, AddressTruth>): Record<Address, AddressFacts> {
  return Object.fromEntries(
    Object.entries(truths).map(([address, { address: _, volume_as_payer, volume_as_payee, ...counts }]) => [
      address,
      { ...counts, volume_as_payer: volume_as_payer.toString(), volume_as_payee: volume_as_payee.toString() },
    ]),
  );
}
