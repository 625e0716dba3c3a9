// Carries out a simulation plan on the devnet, one simulated day at a time: each day's
// transactions are queued in a fixed order, mined together at that day's timestamp, and what they
// produced (agentIds, feedback indexes, block times) is recorded for the ground truth.
import { encodeFunctionData, keccak256, parseEther, parseEventLogs, stringToBytes, stringToHex, zeroHash, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AgentDocuments } from './agent-documents.ts';
import { MAX_DEADLINE_DELAY_SECONDS, signAgentWallet } from './agent-wallet.ts';
import { loadArtifact } from './artifacts.ts';
import { devnetClients } from './clients.ts';
import type { Devnet } from './index.ts';
import { Prng } from './prng.ts';
import type { CatalogFile, RegistrationFile, UriKind } from './registration-files.ts';
import type { RegistrationServer } from './registration-server.ts';
import type { Payee, PlannedAgent, SimulationPlan, Submitter } from './simulate-plan.ts';
import { TxBatch, type MinedTx, type TxRequest } from './tx-batch.ts';
import { AUTHORIZATION_TTL_SECONDS, signAuthorization } from './x402.ts';

const token = loadArtifact('Eip3009Token').abi;
const identity = loadArtifact('IdentityRegistry').abi;
const reputation = loadArtifact('ReputationRegistry').abi;

const DAY_SECONDS = 86_400;
/** Gas money for every simulated account that sends transactions. */
const ETH_FUNDING = parseEther('10');
const SYBIL_ETH = parseEther('0.5');

// Gas limits, generous so nothing runs out: a limit only reserves block space, blocks are filled
// by gas actually used. Storing a string costs about 22,100 gas per 32 bytes.
const GAS = {
  transfer: 100_000n,
  authorizedTransfer: 150_000n,
  ethTransfer: 21_000n,
  agentWallet: 150_000n,
  agentTransfer: 120_000n,
  feedback: 300_000n,
  revoke: 80_000n,
  response: 200_000n,
};
const gasForString = (base: bigint, text: string) => base + 800n * BigInt(Buffer.byteLength(text));

export interface AgentState {
  plan: PlannedAgent;
  agentId: number;
  owner: Address;
  /** The reserved agentWallet metadata; null once a transfer cleared it. */
  agentWallet: Address | null;
  uri: string;
  kind: UriKind;
  file: RegistrationFile | null;
  version: number;
  registrationBlock: number;
  metadata: Record<string, Hex>;
  uriUpdates: number;
  transfers: number;
}

export interface ExecutedPayment {
  from: Address;
  to: Address;
  value: bigint;
  verified: boolean;
  txHash: Hex;
  timestamp: bigint;
}

export interface ExecutedFeedback {
  agent: number;
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
  sybil: boolean;
  blockNumber: number;
}

export interface ExecutedResponse {
  agent: number;
  client: Address;
  feedbackIndex: number;
  responder: Address;
  responseURI: string;
  responseHash: Hex;
  blockNumber: number;
}

type Accounts = { [K in keyof SimulationPlan['keys']]: SimulationPlan['keys'][K] extends Hex[] ? PrivateKeyAccount[] : PrivateKeyAccount };

export interface RunResult {
  accounts: Accounts;
  /** In plan order: agents[i] is the plan's agent i. */
  agents: AgentState[];
  payments: ExecutedPayment[];
  plainTransfers: { from: Address; to: Address; value: bigint }[];
  mints: { to: Address; value: bigint }[];
  feedback: ExecutedFeedback[];
  responses: ExecutedResponse[];
  agentTransfers: { agent: number; from: Address; to: Address; blockNumber: number }[];
  facilitatorsUsed: Address[];
  blocks: { first: bigint; last: bigint; firstTimestamp: bigint; lastTimestamp: bigint };
}

interface MinedDay {
  first: bigint;
  last: bigint;
  /** Of the day's first block. */
  timestamp: bigint;
}

const lower = (address: Address) => address.toLowerCase() as Address;

export async function runPlan(devnet: Devnet, plan: SimulationPlan, catalog: CatalogFile[], server: RegistrationServer): Promise<RunResult> {
  const batch = await TxBatch.open(devnet);
  try {
    return await new SimulationRun(devnet, plan, catalog, server, batch).execute();
  } finally {
    await batch.close();
  }
}

class SimulationRun {
  readonly #accounts: Accounts;
  readonly #documents: AgentDocuments;
  /** Filled in as registrations are mined. */
  readonly #agents: AgentState[] = [];
  readonly #feedback: ExecutedFeedback[] = [];
  readonly #lastIndex = new Map<string, number>();
  readonly #result: Pick<RunResult, 'payments' | 'plainTransfers' | 'mints' | 'responses' | 'agentTransfers' | 'facilitatorsUsed'> = {
    payments: [],
    plainTransfers: [],
    mints: [],
    responses: [],
    agentTransfers: [],
    facilitatorsUsed: [],
  };
  /** Called with each queued transaction's receipt once mined, in queue order. */
  #onMined: ((mined: MinedTx) => void)[] = [];

  constructor(
    private readonly devnet: Devnet,
    private readonly plan: SimulationPlan,
    catalog: CatalogFile[],
    server: RegistrationServer,
    private readonly batch: TxBatch,
  ) {
    const { keys } = plan;
    const many = (list: Hex[]) => list.map((key) => privateKeyToAccount(key));
    this.#accounts = {
      operators: many(keys.operators),
      wallets: many(keys.wallets),
      payers: many(keys.payers),
      merchants: many(keys.merchants),
      bystanders: many(keys.bystanders),
      sybils: many(keys.sybils),
      outsider: privateKeyToAccount(keys.outsider),
      sybilFunder: privateKeyToAccount(keys.sybilFunder),
      watchdog: privateKeyToAccount(keys.watchdog),
    };
    this.#documents = new AgentDocuments(server, catalog, { chainId: devnet.chainId, identityRegistry: lower(devnet.identityRegistry.address) });
  }

  async execute(): Promise<RunResult> {
    const latest = await devnetClients(this.devnet).publicClient.getBlock({ blockTag: 'latest' });
    const clock = new Prng(this.plan.seed, 'clock');
    const midnight = Number(latest.timestamp - (latest.timestamp % BigInt(DAY_SECONDS)));
    // Each day's block at a random hour between 01:00 and 21:00 UTC: never near midnight, so a
    // day's spill-over blocks stay on the same date.
    const dayTime = (day: number) => midnight + day * DAY_SECONDS + clock.between(3_600, 21 * 3_600);

    const mined = [await this.#mineDay(Number(latest.timestamp) + 10, () => this.#setUp())];
    for (let day = 1; day <= this.plan.days; day++) {
      const time = dayTime(day);
      mined.push(await this.#mineDay(time, () => this.#queueDay(day, time)));
    }
    const days = mined.filter((m) => m !== undefined);
    const first = days[0] ?? { first: latest.number, last: latest.number, timestamp: latest.timestamp };
    const last = days.at(-1) ?? first;
    return {
      ...this.#result,
      accounts: this.#accounts,
      agents: this.#agents,
      feedback: this.#feedback,
      blocks: { first: first.first, last: last.last, firstTimestamp: first.timestamp, lastTimestamp: last.timestamp },
    };
  }

  /** Queues a day's transactions with `queue` and mines them at `time`; undefined when there were none. */
  async #mineDay(time: number, queue: () => Promise<void>): Promise<MinedDay | undefined> {
    await queue();
    if (this.batch.queued === 0) return undefined;
    const mined = await this.batch.mine(time);
    const callbacks = this.#onMined;
    this.#onMined = [];
    mined.forEach((m, i) => callbacks[i]!(m));
    const blocks = mined.map((m) => m.receipt.blockNumber);
    const first = blocks.reduce((a, b) => (b < a ? b : a));
    return { first, last: blocks.reduce((a, b) => (b > a ? b : a)), timestamp: mined[blocks.indexOf(first)]!.timestamp };
  }

  #send(sender: PrivateKeyAccount | Address, tx: TxRequest, onMined: (mined: MinedTx) => void = () => {}): void {
    if (typeof sender === 'string') this.batch.unlocked(sender, tx);
    else this.batch.signed(sender, tx);
    this.#onMined.push(onMined);
  }

  /** Day 0: gas money for everyone who sends transactions, and USDC for everyone who pays. */
  async #setUp(): Promise<void> {
    const accounts = this.#accounts;
    await this.batch.fund([...accounts.operators, ...accounts.payers, accounts.outsider, accounts.watchdog].map((a) => a.address), ETH_FUNDING);
    await this.batch.fund([accounts.sybilFunder.address], ETH_FUNDING + SYBIL_ETH * BigInt(accounts.sybils.length));
    const outflow = accounts.payers.map(() => 0n);
    for (const p of [...this.plan.payments, ...this.plan.plainTransfers]) outflow[p.payer] = outflow[p.payer]! + p.value;
    outflow.forEach((value, payer) => {
      if (value === 0n) return;
      // Whole USDC plus a margin, as a wallet would be topped up.
      const minted = (value / 1_000_000n + 10n) * 1_000_000n;
      const to = lower(accounts.payers[payer]!.address);
      const data = encodeFunctionData({ abi: token, functionName: 'mint', args: [to, minted] });
      this.#send(this.devnet.accounts[0]!, { label: `mint to payer ${payer}`, to: this.devnet.token.address, data, gas: GAS.transfer });
      this.#result.mints.push({ to, value: minted });
    });
  }

  /** Everything planned for `day`, in an order where nothing depends on a later transaction. */
  async #queueDay(day: number, time: number): Promise<void> {
    const { plan } = this;
    const onDay = <T extends { day: number }>(items: T[]) => items.flatMap((item, index) => (item.day === day ? [{ item, index }] : []));

    for (const { item } of onDay(plan.sybilFunding)) this.#fundSybil(item.sybil);
    for (const [i, agent] of plan.agents.entries()) {
      if (agent.registrationDay === day) this.#register(i);
      if (agent.registerWith === 'no-uri' && agent.registrationDay + 1 === day) this.#setUri(i, agent.kind);
      if (agent.uriUpdate?.day === day) this.#setUri(i, agent.uriUpdate.kind);
      if (agent.wallet?.day === day) await this.#setWallet(i, time);
      if (agent.transfer?.day === day) this.#transferAgent(i, agent.transfer.toOperator);
    }
    for (const { item, index } of onDay(plan.payments)) await this.#pay(index, item.payer, item.payee, item.value, item.via, time);
    for (const { item } of onDay(plan.plainTransfers)) this.#plainTransfer(item.payer, item.payee, item.value);
    for (const { index } of onDay(plan.feedback)) this.#giveFeedback(index, time);
    for (const { item } of onDay(plan.revocations)) this.#revoke(item.feedback);
    for (const { item, index } of onDay(plan.responses)) this.#respond(index, item.feedback, item.by);
  }

  #fundSybil(sybil: number): void {
    const to = this.#accounts.sybils[sybil]!.address;
    this.#send(this.#accounts.sybilFunder, { label: `fund sybil ${sybil}`, to, value: SYBIL_ETH, gas: GAS.ethTransfer });
  }

  #operator(address: Address): PrivateKeyAccount {
    return this.#accounts.operators.find((a) => lower(a.address) === address)!;
  }

  // --- Identity ------------------------------------------------------------------------------

  #register(i: number): void {
    const agent = this.plan.agents[i]!;
    const owner = lower(this.#accounts.operators[agent.operator]!.address);
    const first = { kind: agent.kind, version: 1, agentId: undefined, owner };
    const { uri, file } = agent.registerWith === 'no-uri' ? { uri: '', file: null } : this.#documents.document(agent, first);
    const metadata =
      agent.registerWith === 'uri-and-metadata'
        ? [
            { metadataKey: 'category', metadataValue: stringToHex(agent.persona.skill) },
            { metadataKey: 'version', metadataValue: stringToHex('1.0.0') },
          ]
        : [];
    const data =
      agent.registerWith === 'no-uri'
        ? encodeFunctionData({ abi: identity, functionName: 'register', args: [] })
        : agent.registerWith === 'uri'
          ? encodeFunctionData({ abi: identity, functionName: 'register', args: [uri] })
          : encodeFunctionData({ abi: identity, functionName: 'register', args: [uri, metadata] });
    const gas = gasForString(200_000n, uri) + BigInt(metadata.length) * 100_000n;
    this.#send(this.#operator(owner), { label: `register agent ${i}`, to: this.devnet.identityRegistry.address, data, gas }, ({ receipt }) => {
      const [registered] = parseEventLogs({ abi: identity, logs: receipt.logs, eventName: 'Registered' });
      const agentId = Number(registered!.args.agentId);
      this.#agents[i] = {
        plan: agent,
        agentId,
        owner,
        agentWallet: owner,
        uri,
        kind: agent.kind,
        file: this.#documents.publish(agent, uri, file, { ...first, agentId }),
        version: 1,
        registrationBlock: Number(receipt.blockNumber),
        metadata: Object.fromEntries(metadata.map((m) => [m.metadataKey, m.metadataValue])),
        uriUpdates: 0,
        transfers: 0,
      };
      this.#documents.publishSite(agent);
    });
  }

  #setUri(i: number, kind: UriKind): void {
    const state = this.#agents[i]!;
    const next = { kind, version: state.uri === '' ? 1 : state.version + 1, agentId: state.agentId, owner: state.owner };
    const { uri, file } = this.#documents.document(state.plan, next);
    // Replacing a longer URI also zeroes the slots it no longer needs, at 5,000 gas each.
    const gas = gasForString(100_000n, uri) + 200n * BigInt(Buffer.byteLength(state.uri));
    Object.assign(state, { uri, kind, version: next.version, file: this.#documents.publish(state.plan, uri, file, next), uriUpdates: state.uriUpdates + 1 });
    const data = encodeFunctionData({ abi: identity, functionName: 'setAgentURI', args: [BigInt(state.agentId), uri] });
    this.#send(this.#operator(state.owner), { label: `set URI of agent ${i}`, to: this.devnet.identityRegistry.address, data, gas });
  }

  async #setWallet(i: number, time: number): Promise<void> {
    const state = this.#agents[i]!;
    const wallet = this.#accounts.wallets[state.plan.wallet!.key]!;
    // Within the registry's five minutes of the block, which is mined at `time` or a few seconds later.
    const deadline = BigInt(time) + MAX_DEADLINE_DELAY_SECONDS - 60n;
    const signature = await signAgentWallet({
      wallet,
      registry: this.devnet.identityRegistry.address,
      chainId: this.devnet.chainId,
      agentId: BigInt(state.agentId),
      owner: state.owner,
      deadline,
    });
    const data = encodeFunctionData({ abi: identity, functionName: 'setAgentWallet', args: [BigInt(state.agentId), wallet.address, deadline, signature] });
    this.#send(this.#operator(state.owner), { label: `set wallet of agent ${i}`, to: this.devnet.identityRegistry.address, data, gas: GAS.agentWallet });
    state.agentWallet = lower(wallet.address);
  }

  #transferAgent(i: number, toOperator: number): void {
    const state = this.#agents[i]!;
    const from = state.owner;
    const to = lower(this.#accounts.operators[toOperator]!.address);
    const data = encodeFunctionData({ abi: identity, functionName: 'transferFrom', args: [from, to, BigInt(state.agentId)] });
    this.#send(this.#operator(from), { label: `transfer agent ${i}`, to: this.devnet.identityRegistry.address, data, gas: GAS.agentTransfer }, ({ receipt }) =>
      this.#result.agentTransfers.push({ agent: i, from, to, blockNumber: Number(receipt.blockNumber) }),
    );
    // The registry clears the verified wallet on transfer; the new owner has none until it verifies one.
    Object.assign(state, { owner: to, agentWallet: null, transfers: state.transfers + 1 });
  }

  // --- Payments ------------------------------------------------------------------------------

  /** Where a payment to `payee` goes today: an agent's verified wallet, or its owner when it has none. */
  #payee(payee: Payee): Address {
    if ('merchant' in payee) return lower(this.#accounts.merchants[payee.merchant]!.address);
    if ('bystander' in payee) return lower(this.#accounts.bystanders[payee.bystander]!.address);
    const state = this.#agents[payee.agent]!;
    return state.agentWallet ?? state.owner;
  }

  async #pay(j: number, payerIndex: number, payee: Payee, value: bigint, via: Submitter, time: number): Promise<void> {
    const payer = this.#accounts.payers[payerIndex]!;
    const to = this.#payee(payee);
    const args = await signAuthorization({
      payer,
      token: this.devnet.token.address,
      chainId: this.devnet.chainId,
      to,
      value,
      validBefore: BigInt(time) + AUTHORIZATION_TTL_SECONDS,
      nonce: keccak256(stringToBytes(`simulate:${this.plan.seed}:payment:${j}`)),
    });
    const tx = { label: `payment ${j}`, to: this.devnet.token.address, data: encodeFunctionData({ abi: token, functionName: 'transferWithAuthorization', args }), gas: GAS.authorizedTransfer };
    const facilitator = via === 'outsider' ? undefined : lower(this.devnet.facilitators[via]!);
    const verified = facilitator !== undefined;
    if (facilitator && !this.#result.facilitatorsUsed.includes(facilitator)) this.#result.facilitatorsUsed.push(facilitator);
    this.#send(facilitator ?? this.#accounts.outsider, tx, ({ receipt, timestamp }) => {
      this.#result.payments[j] = { from: lower(payer.address), to, value, verified, txHash: receipt.transactionHash, timestamp };
    });
  }

  #plainTransfer(payerIndex: number, payee: Payee, value: bigint): void {
    const from = this.#accounts.payers[payerIndex]!;
    const to = this.#payee(payee);
    const data = encodeFunctionData({ abi: token, functionName: 'transfer', args: [to, value] });
    this.#send(from, { label: `plain transfer from payer ${payerIndex}`, to: this.devnet.token.address, data, gas: GAS.transfer });
    this.#result.plainTransfers.push({ from: lower(from.address), to, value });
  }

  // --- Reputation ----------------------------------------------------------------------------

  #giveFeedback(index: number, time: number): void {
    const planned = this.plan.feedback[index]!;
    const state = this.#agents[planned.agent]!;
    const client = planned.sybil ? this.#accounts.sybils[planned.client]! : this.#accounts.payers[planned.client]!;
    const clientAddress = lower(client.address);
    const endpoint = planned.withEndpoint ? this.#documents.mcpEndpoint(state.plan) : '';
    // The index counts per (agent, client), and each client's transactions are mined in nonce
    // order, so it is known before mining (and checked after).
    const key = `${state.agentId}:${clientAddress}`;
    const feedbackIndex = (this.#lastIndex.get(key) ?? 0) + 1;
    this.#lastIndex.set(key, feedbackIndex);

    // The spec's off-chain feedback file, with the rated x402 payment as proof of payment.
    const payment = planned.withFile ? this.#result.payments[planned.payment!]! : undefined;
    const { uri: feedbackURI, hash: feedbackHash } = payment
      ? this.#documents.publishJson(`/feedback/${index}.json`, {
          agentRegistry: `eip155:${this.devnet.chainId}:${lower(this.devnet.identityRegistry.address)}`,
          agentId: state.agentId,
          clientAddress: `eip155:${this.devnet.chainId}:${clientAddress}`,
          createdAt: new Date(time * 1000).toISOString(),
          value: planned.value,
          valueDecimals: planned.valueDecimals,
          tag1: planned.tag1,
          ...(planned.tag2 ? { tag2: planned.tag2 } : {}),
          ...(endpoint ? { endpoint } : {}),
          proofOfPayment: { fromAddress: payment.from, toAddress: payment.to, chainId: String(this.devnet.chainId), txHash: payment.txHash },
        })
      : { uri: '', hash: zeroHash };

    const executed: ExecutedFeedback = {
      agent: planned.agent,
      client: clientAddress,
      feedbackIndex,
      value: planned.value,
      valueDecimals: planned.valueDecimals,
      tag1: planned.tag1,
      tag2: planned.tag2,
      endpoint,
      feedbackURI,
      feedbackHash,
      revoked: false,
      sybil: planned.sybil,
      blockNumber: 0,
    };
    this.#feedback[index] = executed;
    const data = encodeFunctionData({
      abi: reputation,
      functionName: 'giveFeedback',
      args: [BigInt(state.agentId), BigInt(planned.value), planned.valueDecimals, planned.tag1, planned.tag2, endpoint, feedbackURI, feedbackHash],
    });
    const gas = GAS.feedback + 100n * BigInt(endpoint.length + feedbackURI.length);
    this.#send(client, { label: `feedback ${index}`, to: this.devnet.reputationRegistry.address, data, gas }, ({ receipt }) => {
      const [event] = parseEventLogs({ abi: reputation, logs: receipt.logs, eventName: 'NewFeedback' });
      if (Number(event!.args.feedbackIndex) !== feedbackIndex) throw new Error(`feedback ${index}: index ${event!.args.feedbackIndex} on chain, ${feedbackIndex} expected`);
      executed.blockNumber = Number(receipt.blockNumber);
    });
  }

  #revoke(index: number): void {
    const feedback = this.#feedback[index]!;
    const client = this.#accounts.payers.find((a) => lower(a.address) === feedback.client)!;
    const data = encodeFunctionData({ abi: reputation, functionName: 'revokeFeedback', args: [BigInt(this.#agents[feedback.agent]!.agentId), BigInt(feedback.feedbackIndex)] });
    this.#send(client, { label: `revoke feedback ${index}`, to: this.devnet.reputationRegistry.address, data, gas: GAS.revoke });
    feedback.revoked = true;
  }

  /** The agent's owner answers a rating, or the watchdog flags a sybil's. */
  #respond(responseIndex: number, index: number, by: 'owner' | 'watchdog'): void {
    const feedback = this.#feedback[index]!;
    const state = this.#agents[feedback.agent]!;
    const responder = by === 'owner' ? this.#operator(state.owner) : this.#accounts.watchdog;
    const { uri: responseURI, hash: responseHash } = this.#documents.publishJson(`/responses/${responseIndex}.json`, {
      agentId: state.agentId,
      clientAddress: feedback.client,
      feedbackIndex: feedback.feedbackIndex,
      text: by === 'owner' ? 'Thanks for the report: the outage is fixed and the call refunded.' : 'Flagged: rated by a fresh address that never paid this agent.',
    });
    const data = encodeFunctionData({
      abi: reputation,
      functionName: 'appendResponse',
      args: [BigInt(state.agentId), feedback.client, BigInt(feedback.feedbackIndex), responseURI, responseHash],
    });
    this.#send(responder, { label: `response ${responseIndex}`, to: this.devnet.reputationRegistry.address, data, gas: GAS.response }, ({ receipt }) =>
      this.#result.responses.push({
        agent: feedback.agent,
        client: feedback.client,
        feedbackIndex: feedback.feedbackIndex,
        responder: lower(responder.address),
        responseURI,
        responseHash,
        blockNumber: Number(receipt.blockNumber),
      }),
    );
  }
}
