// What a simulation will do, decided up front from its seed alone: who the actors are and what
// each of them does on which day. Agents are named by their index in the plan; their on-chain
// agentIds are only known once registrations are mined (see simulate.ts).
import { keccak256, stringToBytes, type Hex } from 'viem';
import { Prng } from './prng.ts';
import { drawPersona, type Persona, type UriKind } from './registration-files.ts';

export interface PlanOptions {
  agents: number;
  payments: number;
  seed: string;
  days: number;
  /** How many real registration files there are to choose from (fixtures/). */
  catalogFiles: number;
}

/** Submitted by a known facilitator (index into the devnet's), or by the unlisted outsider. */
export type Submitter = number | 'outsider';

export interface PlannedAgent {
  operator: number;
  registrationDay: number;
  kind: UriKind;
  /** An https URL that answers 404 or an HTML page instead of a registration file. */
  broken: 'missing' | 'html' | null;
  /** register(uri), register(uri, metadata) with extra entries, or register() then setAgentURI the next day. */
  registerWith: 'uri' | 'uri-and-metadata' | 'no-uri';
  persona: Persona;
  /** Index into the catalog files, for kind `catalog`. */
  catalogFile: number;
  /** 0..1: how satisfied its paying clients are. */
  quality: number;
  /** setAgentWallet to walletKeys[key]. */
  wallet: { day: number; key: number } | null;
  /** setAgentURI to a new file of this kind. */
  uriUpdate: { day: number; kind: 'https' | 'data-base64' } | null;
  /** transferFrom its operator to another. */
  transfer: { day: number; toOperator: number } | null;
}

export type Payee = { agent: number } | { merchant: number } | { bystander: number };

export interface PlannedPayment {
  day: number;
  /** Index into payerKeys. */
  payer: number;
  payee: Payee;
  value: bigint;
  via: Submitter;
}

export interface PlannedTransfer {
  day: number;
  payer: number;
  payee: Payee;
  value: bigint;
}

export interface PlannedFeedback {
  day: number;
  agent: number;
  /** Index into payerKeys, or into sybilKeys when `sybil`. */
  client: number;
  sybil: boolean;
  tag1: string;
  tag2: string;
  value: number;
  valueDecimals: number;
  /** Name the agent's MCP endpoint in the feedback. */
  withEndpoint: boolean;
  /** Publish an off-chain feedback file with a proof of payment, and commit to its hash. */
  withFile: boolean;
  /** The payment it rates, for the proof of payment. */
  payment: number | null;
}

export interface SimulationPlan {
  seed: string;
  days: number;
  keys: {
    operators: Hex[];
    /** Payment wallets agents verify with setAgentWallet; a fleet operator shares one across its agents. */
    wallets: Hex[];
    /** Everyone who pays: buyers first, then merchants that also buy. */
    payers: Hex[];
    merchants: Hex[];
    /** Receive a plain transfer now and then, never an x402 payment. */
    bystanders: Hex[];
    sybils: Hex[];
    outsider: Hex;
    sybilFunder: Hex;
    watchdog: Hex;
  };
  /** Payers that are merchants: payers[i] is merchants[i - buyers]. */
  buyers: number;
  agents: PlannedAgent[];
  payments: PlannedPayment[];
  plainTransfers: PlannedTransfer[];
  feedback: PlannedFeedback[];
  revocations: { day: number; feedback: number }[];
  responses: { day: number; feedback: number; by: 'owner' | 'watchdog' }[];
  sybilFunding: { day: number; sybil: number }[];
  sybilTargets: number[];
}

const FACILITATOR_SHARE = 0.85;
const AGENT_PAYMENT_SHARE = 0.7;
const PLAIN_TRANSFER_RATIO = 0.05;

export function planSimulation(opts: PlanOptions): SimulationPlan {
  const { seed, days } = opts;
  const rng = (label: string) => new Prng(seed, label);
  const keys = (role: string, count: number) => Array.from({ length: count }, (_, i) => keccak256(stringToBytes(`simulate:${seed}:${role}:${i}`)));

  const operatorSizes = planOperatorSizes(rng('operators'), opts.agents);
  const buyers = opts.payments > 0 ? Math.max(5, Math.round(opts.payments / 25)) : 0;
  const merchantCount = opts.payments > 0 ? Math.max(2, Math.round(opts.payments / 150)) : 0;
  const merchantPayers = Math.min(2, merchantCount);
  const sybilCount = opts.agents > 0 ? Math.max(3, Math.round(opts.agents / 10)) : 0;

  let wallets = 0;
  const agents = planAgents(rng('agents'), opts, operatorSizes, () => wallets++);
  const payees = planPayees(rng('payees'), agents, days, merchantCount);
  const payments = planPayments(rng('payments'), opts.payments, buyers, merchantPayers, payees);
  const bystanders = Math.max(2, Math.round((opts.payments * PLAIN_TRANSFER_RATIO) / 10));
  const plainTransfers = planPlainTransfers(rng('plain'), Math.round(opts.payments * PLAIN_TRANSFER_RATIO), buyers, bystanders, payees);
  const sybilTargets = chooseSybilTargets(rng('sybil-targets'), agents, days);
  const feedback = [
    ...planHonestFeedback(rng('feedback'), payments, agents, days),
    ...planSybilFeedback(rng('sybils'), sybilCount, sybilTargets, agents, days),
  ].sort((a, b) => a.day - b.day);
  const sybilFunding = planSybilFunding(feedback);

  const { revocations, responses } = planFollowUps(rng('follow-ups'), feedback, days);

  return {
    seed,
    days,
    keys: {
      operators: keys('operator', operatorSizes.length),
      wallets: keys('wallet', wallets),
      payers: [...keys('buyer', buyers), ...keys('merchant', merchantPayers)],
      merchants: keys('merchant', merchantCount),
      bystanders: keys('bystander', bystanders),
      sybils: keys('sybil', sybilCount),
      outsider: keys('outsider', 1)[0]!,
      sybilFunder: keys('sybil-funder', 1)[0]!,
      watchdog: keys('watchdog', 1)[0]!,
    },
    buyers,
    agents,
    payments,
    plainTransfers,
    feedback,
    revocations,
    responses,
    sybilFunding,
    sybilTargets,
  };
}

/**
 * How many agents each operator owns: every eighth a fleet of 5 to 10, the rest 1 to 3, and the
 * second exactly one, so both ends are always there.
 */
function planOperatorSizes(rng: Prng, agents: number): number[] {
  const sizes: number[] = [];
  for (let left = agents; left > 0; ) {
    const size = Math.min(left, sizes.length === 1 ? 1 : sizes.length % 8 === 0 ? rng.between(5, 10) : rng.between(1, 3));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

function planAgents(rng: Prng, opts: PlanOptions, operatorSizes: number[], newWallet: () => number): PlannedAgent[] {
  const { days } = opts;
  const owners = rng.shuffle(operatorSizes.flatMap((size, operator) => Array<number>(size).fill(operator)));
  // Agents register over the first 60% of the period, so most have a history after registering.
  const lastRegistrationDay = Math.max(1, Math.floor(days * 0.6));
  // The first five agents cover every form (in random order); the rest follow real-world shares.
  const firstKinds = rng.shuffle(['https', 'data-base64', 'data-plain', 'catalog', 'broken'] as const);
  const fleetWallets = new Map<number, number>();
  return owners.map((operator, i) => {
    const form = firstKinds[i] ?? weighted(rng, [['https', 32], ['data-base64', 25], ['data-plain', 10], ['catalog', 28], ['broken', 5]] as const);
    const registrationDay = rng.between(1, lastRegistrationDay);
    const registerWith = i === 1 ? 'no-uri' : i === 2 ? 'uri-and-metadata' : weighted(rng, [['uri', 84], ['uri-and-metadata', 10], ['no-uri', 6]] as const);
    const hasWallet = i === 3 || rng.chance(0.3);
    const walletDay = registrationDay + rng.between(1, 3);
    const fleet = operatorSizes[operator]! >= 5;
    const wallet =
      hasWallet && walletDay <= days
        ? { day: walletDay, key: fleet ? (fleetWallets.get(operator) ?? fleetWallets.set(operator, newWallet()).get(operator)!) : newWallet() }
        : null;
    const updateDay = registrationDay + rng.between(4, 20);
    // Not the first five, which keep one URI of each form to the end.
    const updates = i === 5 || (i > 5 && rng.chance(0.12));
    const uriUpdate = updates && updateDay <= days ? { day: updateDay, kind: rng.pick(['https', 'data-base64'] as const) } : null;
    return {
      operator,
      registrationDay,
      kind: form === 'broken' ? 'https' : form,
      broken: form === 'broken' ? rng.pick(['missing', 'html'] as const) : null,
      registerWith,
      persona: drawPersona(rng, i),
      catalogFile: rng.int(opts.catalogFiles),
      quality: 0.3 + 0.7 * rng.next(),
      wallet,
      uriUpdate,
      transfer: null,
    } satisfies PlannedAgent;
  }).map((agent, i, all) => ({ ...agent, transfer: planTransfer(rng, agent, i, all.length, operatorSizes.length, days) }));
}

/** A few agents change hands, after their wallet is set and never on the day their URI changes. */
function planTransfer(rng: Prng, agent: PlannedAgent, index: number, agents: number, operators: number, days: number): PlannedAgent['transfer'] {
  const share = Math.max(1, Math.round(agents * 0.03)) / agents;
  if (operators < 2 || !(index === 0 || rng.chance(share))) return null;
  let day = Math.max(agent.registrationDay + rng.between(6, 25), (agent.wallet?.day ?? 0) + 1);
  if (day === agent.uriUpdate?.day) day++;
  if (day > days) return null;
  return { day, toOperator: (agent.operator + 1 + rng.int(operators - 1)) % operators };
}

function weighted<T>(rng: Prng, options: readonly (readonly [T, number])[]): T {
  let target = rng.next() * options.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [value, weight] of options) {
    target -= weight;
    if (target < 0) return value;
  }
  return options[options.length - 1]![0];
}

interface PayeePicker {
  /** A payee and a day on which it can be paid (an agent only after it registered). */
  pick(): { payee: Payee; day: number };
}

function planPayees(rng: Prng, agents: PlannedAgent[], days: number, merchants: number): PayeePicker {
  // Popularity is independent of registration order: a few agents get most of the business.
  const byPopularity = rng.shuffle(agents.map((_, i) => i)).filter((i) => agents[i]!.registrationDay < days);
  return {
    pick() {
      if (byPopularity.length > 0 && (merchants === 0 || rng.chance(AGENT_PAYMENT_SHARE))) {
        const agent = byPopularity[rng.skewed(byPopularity.length, 0.9)]!;
        return { payee: { agent }, day: rng.between(agents[agent]!.registrationDay + 1, days) };
      }
      return { payee: { merchant: rng.skewed(merchants) }, day: rng.between(1, days) };
    },
  };
}

/** x402 amounts are mostly cents: log-uniform from 0.001 to 25 USDC. */
function amount(rng: Prng): bigint {
  return BigInt(Math.round(10 ** (-3 + rng.next() * 4.4) * 1e6));
}

function planPayments(rng: Prng, count: number, buyers: number, merchantPayers: number, payees: PayeePicker): PlannedPayment[] {
  const payments: PlannedPayment[] = [];
  while (payments.length < count) {
    const { payee, day } = payees.pick();
    // Mostly buyers; now and then a merchant buys too, so some addresses are on both sides.
    const payer = merchantPayers > 0 && rng.chance(0.05) ? buyers + rng.int(merchantPayers) : rng.skewed(buyers, 0.8);
    if ('merchant' in payee && payer - buyers === payee.merchant) continue;
    const via = rng.chance(FACILITATOR_SHARE) ? rng.int(3) : 'outsider';
    payments.push({ day, payer, payee, value: amount(rng), via });
  }
  return payments.sort((a, b) => a.day - b.day);
}

function planPlainTransfers(rng: Prng, count: number, buyers: number, bystanders: number, payees: PayeePicker): PlannedTransfer[] {
  return Array.from({ length: count }, () => {
    const picked = payees.pick();
    const payee = rng.chance(0.3) ? { bystander: rng.int(bystanders) } : picked.payee;
    return { day: picked.day, payer: rng.int(buyers), payee, value: amount(rng) };
  }).sort((a, b) => a.day - b.day);
}

const HONEST_TAGS = ['starred', 'uptime', 'reachable', 'successRate'] as const;

/** A rating consistent with the agent's quality, in the units the spec's examples use. */
function rating(rng: Prng, tag: (typeof HONEST_TAGS)[number], quality: number): { value: number; valueDecimals: number } {
  const noisy = (scale: number, spread: number) => Math.max(0, Math.min(scale, Math.round(quality * scale + (rng.next() - 0.5) * spread)));
  switch (tag) {
    case 'starred':
      return { value: noisy(100, 30), valueDecimals: 0 };
    case 'uptime':
      return { value: 9000 + noisy(999, 200), valueDecimals: 2 };
    case 'reachable':
      return { value: rng.chance(quality) ? 1 : 0, valueDecimals: 0 };
    case 'successRate':
      return { value: noisy(100, 20), valueDecimals: 0 };
  }
}

/** Clients that paid an agent rate it now and then, after their first payment to it. */
function planHonestFeedback(rng: Prng, payments: PlannedPayment[], agents: PlannedAgent[], days: number): PlannedFeedback[] {
  const firstPayment = new Map<string, number>();
  payments.forEach((p, i) => {
    if ('agent' in p.payee && !firstPayment.has(`${p.payer}:${p.payee.agent}`)) firstPayment.set(`${p.payer}:${p.payee.agent}`, i);
  });
  const feedback: PlannedFeedback[] = [];
  for (const paymentIndex of firstPayment.values()) {
    const payment = payments[paymentIndex]!;
    const agent = (payment.payee as { agent: number }).agent;
    const count = rng.chance(0.3) ? (rng.chance(0.2) ? 2 : 1) : 0;
    for (let n = 0; n < count; n++) {
      const day = payment.day + rng.between(1, 12);
      if (day > days) continue;
      const tag1 = rng.pick(HONEST_TAGS);
      feedback.push({
        day,
        agent,
        client: payment.payer,
        sybil: false,
        tag1,
        tag2: rng.chance(0.3) ? rng.pick(['mcp', 'a2a', 'week']) : '',
        ...rating(rng, tag1, agents[agent]!.quality),
        withEndpoint: rng.chance(0.5),
        withFile: rng.chance(0.35),
        payment: paymentIndex,
      });
    }
  }
  return feedback;
}

/** Two or three agents (one for tiny simulations) that a sybil farm boosts. */
function chooseSybilTargets(rng: Prng, agents: PlannedAgent[], days: number): number[] {
  const eligible = agents.map((_, i) => i).filter((i) => agents[i]!.registrationDay <= days - 3);
  const count = Math.min(eligible.length, agents.length >= 100 ? 3 : agents.length >= 4 ? 2 : 1);
  return rng.shuffle(eligible).slice(0, count).sort((a, b) => a - b);
}

/**
 * Fresh addresses that never pay anyone, funded with ETH only, each rating every target one to
 * three times with near-perfect values within one week, right after the last target registered.
 */
function planSybilFeedback(rng: Prng, sybils: number, targets: number[], agents: PlannedAgent[], days: number): PlannedFeedback[] {
  if (targets.length === 0) return [];
  const burstStart = Math.max(...targets.map((t) => agents[t]!.registrationDay)) + 2;
  const feedback: PlannedFeedback[] = [];
  for (let sybil = 0; sybil < sybils; sybil++) {
    for (const agent of targets) {
      for (let n = rng.between(1, 3); n > 0; n--) {
        const tag1 = rng.pick(['starred', 'successRate'] as const);
        feedback.push({
          day: Math.min(days, burstStart + rng.int(7)),
          agent,
          client: sybil,
          sybil: true,
          tag1,
          tag2: '',
          value: tag1 === 'starred' ? rng.between(95, 100) : 100,
          valueDecimals: 0,
          withEndpoint: false,
          withFile: false,
          payment: null,
        });
      }
    }
  }
  return feedback;
}

/**
 * Some clients revoke their feedback later; agent owners answer mostly bad ratings, a watchdog
 * flags some sybil ratings. Each kind happens at least once when there is feedback for it.
 */
function planFollowUps(rng: Prng, feedback: PlannedFeedback[], days: number): Pick<SimulationPlan, 'revocations' | 'responses'> {
  const revocations: SimulationPlan['revocations'] = [];
  const responses: SimulationPlan['responses'] = [];
  const later = (i: number, within: number) => Math.min(days, feedback[i]!.day + rng.between(1, within));
  const room = (i: number) => feedback[i]!.day < days;
  feedback.forEach((f, i) => {
    if (!room(i)) return;
    if (!f.sybil && rng.chance(0.06)) revocations.push({ day: later(i, 10), feedback: i });
    const negative = f.valueDecimals === 0 && (f.tag1 === 'reachable' ? f.value === 0 : f.value < 55);
    if (f.sybil ? rng.chance(0.25) : rng.chance(negative ? 0.4 : 0.03)) responses.push({ day: later(i, 5), feedback: i, by: f.sybil ? 'watchdog' : 'owner' });
  });
  const first = (sybil: boolean) => feedback.findIndex((f, i) => f.sybil === sybil && room(i));
  if (revocations.length === 0 && first(false) >= 0) revocations.push({ day: later(first(false), 10), feedback: first(false) });
  for (const by of ['owner', 'watchdog'] as const) {
    const i = first(by === 'watchdog');
    if (i >= 0 && !responses.some((r) => r.by === by)) responses.push({ day: later(i, 5), feedback: i, by });
  }
  const byDay = (a: { day: number }, b: { day: number }) => a.day - b.day;
  return { revocations: revocations.sort(byDay), responses: responses.sort(byDay) };
}

/** Each sybil gets its gas money the day before it first rates. */
function planSybilFunding(feedback: PlannedFeedback[]): SimulationPlan['sybilFunding'] {
  const firstDay = new Map<number, number>();
  for (const f of feedback) if (f.sybil && !firstDay.has(f.client)) firstDay.set(f.client, f.day);
  return [...firstDay].map(([sybil, day]) => ({ day: day - 1, sybil })).sort((a, b) => a.day - b.day || a.sybil - b.sybil);
}
