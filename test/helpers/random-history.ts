// Random histories for test/scoring-random-histories.test.ts: from a seed, the same stream of raw
// rows on every machine, in batches as ingestion (base and devnet, each source with its cursor)
// and `reputation import` would write them. A small pool of addresses pays and is paid, so pairs
// repeat, counterparties pay each other back and days and months fill up; agents are registered
// on chain and imported, change owners and payment wallets, get registration files (some failed)
// and evidence about their sites and repositories; clients who paid, fresh sybils and
// owners rate them; ratings are revoked; imported transfers name payments a later batch brings
// from the chain (sometimes with another payee, payer or sender) and are exported again; now and
// then a reorg rolls a chain back a few blocks before the batch writes the new branch.
import { chainProfiles } from '../../pipeline/chain/profiles.ts';
import { loadFacilitators } from '../../pipeline/chain/facilitators.ts';
import { kindSpecs, type ImportKind } from '../../pipeline/import/kinds.ts';
import { chainTables } from '../../pipeline/ingest/sources.ts';

export interface Random {
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** mulberry32: a seeded generator small enough to read, the same on every platform. */
function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return { int, chance: (p) => next() < p, pick: (items) => items[int(0, items.length - 1)]! };
}

/** Records that `address` was asked about (an assess lookup, or `score --address`), once. */
export function askedAbout(address: string, source: 'assess' | 'cli'): string {
  return `INSERT INTO known_addresses SELECT '${address}', 'evm', '${source}', utc_now()
           WHERE NOT EXISTS (SELECT 1 FROM known_addresses WHERE address = '${address}')`;
}

export interface RandomHistory {
  random: Random;
  /** SQL writing the next batch: every chain that moves on this time, imports, asked addresses. */
  next(): string;
  /** An address someone asks about: one of the pool, a sybil, or one never seen. */
  someAddress(): string;
  /** The reorgs so far, oldest first: the chain's rows from `from` on were rolled back. */
  rollbacks: { chain: string; from: number }[];
}

// Generated literals only (hex, digits, fixed words): plain SQL text is safe.
type Value = string | number | boolean | null | { sql: string };
const literal = (v: Value) => (v === null ? 'NULL' : typeof v === 'string' ? `'${v}'` : typeof v === 'object' ? v.sql : String(v));
const tuple = (values: Value[]) => `(${values.map(literal).join(', ')})`;
const hex = (n: number, digits: number) => `0x${n.toString(16).padStart(digits, '0')}`;
const address = (n: number) => hex(n, 40);
const zeroAddress = address(0);
const now: Value = { sql: 'utc_now()' };
// Five hours a block from 25 January: a batch covers hours to weeks, a history one to three months.
const blockTime = (block: number): Value => ({
  sql: `TIMESTAMP '${new Date(Date.UTC(2026, 0, 25) + block * 5 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ')}'`,
});

const facilitators = loadFacilitators().filter((f) => f.network === 'base').slice(0, 2).map((f) => f.address);
// Thirty addresses, a known facilitator among them; the first eight take part most often.
const pool = [facilitators[0]!, ...Array.from({ length: 29 }, (_, i) => address(i + 1))];
const regulars = pool.slice(0, 8);

type Via = 'eip3009' | 'permit2' | 'plain';
interface Payment { payer: string; payee: string; value: number; via: Via; sender: string | null }
/** Where a chain row stands: its block, transaction and first log index. */
interface Place { block: number; tx: string; log: number }
interface Planned extends Payment { at: Place }
interface Agent { id: number; owner: string; payTo: string; onChain: boolean }
interface Rating { agent: number; client: string; index: number }
interface ImportedTransfer extends Payment { chain: string; at: Place; authorized: boolean }

interface Contracts { token: string; identity: string; reputation: string; permit2: string | null }
interface Chain {
  name: string;
  contracts: Contracts;
  head: number;
  /** First block of this batch's range, the range ending at head; null when the chain stands still. */
  from: number | null;
  logs: Map<number, number>;
  agents: Agent[];
  nextAgent: number;
  ratings: Rating[];
  importedRatings: Rating[];
  indexes: Map<string, number>;
  planned: Planned[];
  pairs: [string, string][];
  payers: Map<string, string[]>;
}

interface World {
  random: Random;
  seed: number;
  chains: Chain[];
  sybils: string[];
  strangers: number;
  txs: number;
  imports: number;
  importedTransfers: ImportedTransfer[];
  paid: boolean;
  rollbacks: { chain: string; from: number }[];
}

/** Rows to insert, the blocks recorded for them, and statements: rollbacks first, the rest last. */
interface Batch { rows: Map<string, string[]>; blocks: Set<string>; statements: string[]; rollbacks: string[] }

const newBatch = (): Batch => ({ rows: new Map(), blocks: new Set(), statements: [], rollbacks: [] });

function add(batch: Batch, table: string, values: Value[]): void {
  const rows = batch.rows.get(table) ?? [];
  rows.push(tuple(values));
  batch.rows.set(table, rows);
}

/** The block's row for a source (ingestion writes one per block with logs, and the cursor's). */
function touch(batch: Batch, chain: Chain, source: string, block: number): void {
  const key = `${chain.name}|${source}|${block}`;
  if (batch.blocks.has(key)) return;
  batch.blocks.add(key);
  add(batch, 'chain_blocks', [chain.name, block, hex(block, 64), blockTime(block), source]);
}

const sqlOf = (batch: Batch) =>
  [...batch.rollbacks, ...[...batch.rows].map(([table, rows]) => `INSERT INTO ${table} VALUES ${rows.join(', ')}`), ...batch.statements]
    .join(';\n');

function contractsOf(name: string): Contracts {
  const profile = chainProfiles[name] as Record<string, { address: string } | undefined>;
  const lower = (key: string) => profile[key]?.address.toLowerCase() ?? null;
  return { token: lower('token')!, identity: lower('identityRegistry')!, reputation: lower('reputationRegistry')!, permit2: lower('permit2Proxy') };
}

const sourcesOf = (chain: Chain) => ['token', 'identity', 'reputation', ...(chain.contracts.permit2 ? ['permit2'] : [])];

export function randomHistory(seed: number): RandomHistory {
  const world: World = {
    random: seededRandom(seed),
    seed,
    chains: ['base', 'devnet'].map((name) => ({
      name, contracts: contractsOf(name), head: 0, from: null, logs: new Map(), agents: [], nextAgent: 1,
      ratings: [], importedRatings: [], indexes: new Map(), planned: [], pairs: [], payers: new Map(),
    })),
    sybils: [],
    strangers: 0,
    txs: 0,
    imports: 0,
    importedTransfers: [],
    paid: false,
    rollbacks: [],
  };
  return {
    random: world.random,
    next: () => nextBatch(world),
    someAddress: () => someAddress(world),
    rollbacks: world.rollbacks,
  };
}

function nextBatch(world: World): string {
  const { random } = world;
  const batch = newBatch();
  for (const chain of world.chains) if (chain.head > 0 && random.chance(0.1)) rollBack(world, batch, chain);
  for (const chain of advance(world, batch)) {
    for (const planned of chain.planned.filter((p) => p.at.block <= chain.head)) writePayment(world, batch, chain, planned.at, planned);
    chain.planned = chain.planned.filter((p) => p.at.block > chain.head);
    for (let n = random.int(chain.agents.length === 0 ? 1 : 0, 2); n > 0; n--) registerAgent(world, batch, chain);
    for (let n = random.int(0, 2); n > 0; n--) changeAgent(world, batch, chain);
    for (let n = random.int(3, 10); n > 0; n--) writePayment(world, batch, chain, place(world, batch, chain, 'token', 2), randomPayment(world, chain));
    for (let n = random.int(0, 5); n > 0; n--) rate(world, batch, chain);
    if (chain.ratings.length > 0 && random.chance(0.3)) revoke(world, batch, chain);
    describeAgents(world, batch, chain);
  }
  for (let n = random.chance(0.5) ? random.int(1, 2) : 0; n > 0; n--) writeImport(world, batch);
  if (random.chance(0.2)) batch.statements.push(askedAbout(someAddress(world), 'assess'));
  return sqlOf(batch);
}

/**
 * A reorg: ingestion rolls the chain's rows back from a recent block on, in every source, with
 * their cursors, and gives each source a cursor at the block below, the common ancestor
 * (pipeline/ingest/reorg.ts), before this batch writes the new branch. The rows written below the
 * fork stay; what the generator planned or remembers above it may name rows that are gone, as
 * after a real reorg. Runs before the batch's own rows.
 */
function rollBack(world: World, batch: Batch, chain: Chain): void {
  const from = world.random.int(Math.max(1, chain.head - 30), chain.head);
  for (const table of chainTables) {
    batch.rollbacks.push(`DELETE FROM ${table} WHERE chain = '${chain.name}' AND block_number >= ${from}`);
  }
  const ancestor = from - 1;
  if (ancestor > 0) {
    for (const source of sourcesOf(chain)) {
      batch.rollbacks.push(
        `INSERT INTO chain_blocks SELECT ${tuple([chain.name, ancestor, hex(ancestor, 64), blockTime(ancestor), source]).slice(1, -1)}
          WHERE NOT EXISTS (SELECT 1 FROM chain_blocks WHERE chain = '${chain.name}' AND source = '${source}' AND block_number = ${ancestor})`,
        `INSERT INTO ingest_cursors VALUES ${tuple([chain.name, source, ancestor, hex(ancestor, 64), now])}`,
      );
    }
  }
  chain.head = ancestor;
  for (const block of chain.logs.keys()) if (block >= from) chain.logs.delete(block);
  world.rollbacks.push({ chain: chain.name, from });
}

/** Moves chains on (base always at first, devnet from some later batch), each source's cursor with them. */
function advance(world: World, batch: Batch): Chain[] {
  const { random } = world;
  return world.chains.filter((chain, i) => {
    const moves = chain.head === 0 ? i === 0 || random.chance(0.5) : random.chance(0.85);
    chain.from = moves ? chain.head + 1 : null;
    if (!moves) return false;
    chain.head += random.int(1, 90);
    for (const source of sourcesOf(chain)) {
      touch(batch, chain, source, chain.head);
      add(batch, 'ingest_cursors', [chain.name, source, chain.head, hex(chain.head, 64), now]);
    }
    return true;
  });
}

const newTx = (world: World) => hex(++world.txs, 64);

/** Reserves `logs` consecutive log indices in a block of the chain. */
function reserve(world: World, chain: Chain, block: number, logs: number): Place {
  const log = chain.logs.get(block) ?? 0;
  chain.logs.set(block, log + logs);
  return { block, tx: newTx(world), log };
}

/** A place for a new chain event of `source` within this batch's range. */
function place(world: World, batch: Batch, chain: Chain, source: string, logs: number): Place {
  const at = reserve(world, chain, world.random.int(chain.from!, chain.head), logs);
  touch(batch, chain, source, at.block);
  return at;
}

function someone(world: World): string {
  return world.random.pick(world.random.chance(0.5) ? regulars : pool);
}

function sybil(world: World): string {
  if (world.sybils.length > 0 && world.random.chance(0.5)) return world.random.pick(world.sybils);
  const fresh = address(0x5b0000 + world.sybils.length);
  world.sybils.push(fresh);
  return fresh;
}

function someAddress(world: World): string {
  const { random } = world;
  if (random.chance(0.4)) return someone(world);
  return random.chance(0.5) ? sybil(world) : address(0xa5c000 + ++world.strangers);
}

/** A pair paid before (either way round), or a payer (now and then a sybil) and a payee (often an agent). */
function randomPair(world: World, chain: Chain): [string, string] {
  const { random } = world;
  if (chain.pairs.length > 0 && random.chance(0.35)) {
    const [payer, payee] = random.pick(chain.pairs);
    return random.chance(0.5) ? [payer, payee] : [payee, payer];
  }
  const payee = chain.agents.length > 0 && random.chance(0.5) ? random.pick(chain.agents).payTo : someone(world);
  let payer = world.sybils.length > 0 && random.chance(0.3) ? random.pick(world.sybils) : someone(world);
  while (payer === payee) payer = random.pick(pool);
  return [payer, payee];
}

/** Verified when a facilitator sent it; the first one of a history always is, so some payment is scored. */
function randomPayment(world: World, chain: Chain): Payment {
  const { random } = world;
  const [payer, payee] = randomPair(world, chain);
  const via = world.paid ? random.pick<Via>(['eip3009', 'eip3009', 'eip3009', 'permit2', 'plain']) : 'eip3009';
  const verified = !world.paid || random.chance(0.65);
  return {
    payer, payee, value: random.int(1, 50) * 100_000,
    via: via === 'permit2' && !chain.contracts.permit2 ? 'eip3009' : via,
    sender: world.paid && random.chance(0.05) ? null : verified ? random.pick(facilitators) : payer,
  };
}

/** A transfer with its EIP-3009 authorisation or Permit2 settlement (none when plain) and its sender. */
function writePayment(world: World, batch: Batch, chain: Chain, at: Place, p: Payment): void {
  const { name, contracts } = chain;
  touch(batch, chain, 'token', at.block);
  add(batch, 'token_transfers', [name, at.block, at.tx, at.log + 1, contracts.token, p.payer, p.payee, p.value]);
  if (p.via === 'plain') return;
  world.paid = true;
  chain.pairs.push([p.payer, p.payee]);
  chain.payers.set(p.payee, [...(chain.payers.get(p.payee) ?? []), p.payer]);
  const source = p.via === 'permit2' ? 'permit2' : 'token';
  if (p.via === 'permit2') {
    touch(batch, chain, 'permit2', at.block);
    add(batch, 'permit2_settlements', [name, at.block, at.tx, at.log, contracts.permit2!, 'Settled']);
  } else {
    add(batch, 'authorizations_used', [name, at.block, at.tx, at.log, contracts.token, p.payer, at.tx]);
  }
  if (p.sender) add(batch, 'transaction_senders', [name, at.block, at.tx, p.sender, source]);
}

/** A new agent minted and registered, or an imported one now registered on chain (the chain's row wins). */
function registerAgent(world: World, batch: Batch, chain: Chain): void {
  const { random } = world;
  const importedOnly = chain.agents.filter((a) => !a.onChain);
  const owner = someone(world);
  const agent = importedOnly.length > 0 && random.chance(0.25) ? random.pick(importedOnly) : newAgent(chain, owner);
  agent.owner = agent.payTo = owner;
  agent.onChain = true;
  const at = place(world, batch, chain, 'identity', 3);
  const registry = chain.contracts.identity;
  add(batch, 'agent_transfers', [chain.name, at.block, at.tx, at.log, registry, agent.id, zeroAddress, agent.owner]);
  add(batch, 'agent_registrations', [chain.name, at.block, at.tx, at.log + 1, registry, agent.id, `https://agents.example/${agent.id}`, agent.owner]);
  if (random.chance(0.3)) setWallet(world, batch, chain, agent, { ...at, log: at.log + 2 });
}

function newAgent(chain: Chain, owner: string): Agent {
  const agent = { id: chain.nextAgent++, owner, payTo: owner, onChain: false };
  chain.agents.push(agent);
  return agent;
}

/** A transfer to another owner (which clears the wallet), a wallet set (maybe another agent's), or cleared. */
function changeAgent(world: World, batch: Batch, chain: Chain): void {
  const { random } = world;
  const agent = random.pick(chain.agents);
  const at = place(world, batch, chain, 'identity', 1);
  const choice = random.int(1, 10);
  if (choice <= 4) {
    let owner = someone(world);
    while (owner === agent.owner) owner = random.pick(pool);
    add(batch, 'agent_transfers', [chain.name, at.block, at.tx, at.log, chain.contracts.identity, agent.id, agent.owner, owner]);
    agent.owner = agent.payTo = owner;
  } else if (choice <= 8) {
    setWallet(world, batch, chain, agent, at);
  } else {
    // Cleared: the zero address, or no bytes at all.
    writeWallet(batch, chain, agent, at, random.chance(0.5) ? zeroAddress : '0x');
    agent.payTo = agent.owner;
  }
}

/** agentWallet as 20 bytes or left-padded to a 32-byte word; now and then another agent's payment address. */
function setWallet(world: World, batch: Batch, chain: Chain, agent: Agent, at: Place): void {
  const { random } = world;
  const wallet = random.chance(0.3) ? random.pick(chain.agents).payTo : someone(world);
  writeWallet(batch, chain, agent, at, random.chance(0.5) ? wallet : `0x${'0'.repeat(24)}${wallet.slice(2)}`);
  agent.payTo = wallet;
}

function writeWallet(batch: Batch, chain: Chain, agent: Agent, at: Place, value: string): void {
  add(batch, 'agent_metadata', [chain.name, at.block, at.tx, at.log, chain.contracts.identity, agent.id, 'agentWallet', value]);
}

/** A client of the agent: one that paid its payment address, a sybil, its owner, or anyone. */
function client(world: World, chain: Chain, agent: Agent): string {
  const { random } = world;
  const payers = chain.payers.get(agent.payTo) ?? [];
  const choice = random.int(1, 20);
  if (choice <= 9 && payers.length > 0) return random.pick(payers);
  if (choice <= 15) return sybil(world);
  if (choice <= 16) return agent.owner;
  return someone(world);
}

/** A new entry of some client for the agent: its feedback index follows the client's previous one. */
function newRating(world: World, chain: Chain, agent: Agent): Rating {
  const rated = client(world, chain, agent);
  const key = `${agent.id}|${rated}`;
  const index = (chain.indexes.get(key) ?? 0) + 1;
  chain.indexes.set(key, index);
  return { agent: agent.id, client: rated, index };
}

/** tag1, value and decimals: ratings, measurements (no rating) and the odd value out of range. */
function ratingValue(world: World): [string, number, number] {
  const { random } = world;
  const tag = random.pick(['starred', 'starred', 'uptime', 'successRate', 'reachable', 'responseTime', '']);
  if (tag === 'reachable') return [tag, random.int(0, 1), 0];
  if (random.chance(0.05)) return [tag, 250, 0];
  return random.chance(0.3) ? [tag, random.int(0, 10_000), 2] : [tag, random.int(0, 100), 0];
}

function rate(world: World, batch: Batch, chain: Chain): void {
  const rating = newRating(world, chain, world.random.pick(chain.agents));
  chain.ratings.push(rating);
  const at = place(world, batch, chain, 'reputation', 1);
  const [tag, value, decimals] = ratingValue(world);
  add(batch, 'feedback', [chain.name, at.block, at.tx, at.log, chain.contracts.reputation, rating.agent, rating.client, rating.index,
    value, decimals, tag, '', '', '', at.tx]);
}

function revoke(world: World, batch: Batch, chain: Chain): void {
  const rating = world.random.pick(chain.ratings);
  chain.ratings = chain.ratings.filter((r) => r !== rating);
  const at = place(world, batch, chain, 'reputation', 1);
  add(batch, 'feedback_revocations', [chain.name, at.block, at.tx, at.log, chain.contracts.reputation, rating.agent, rating.client, rating.index]);
}

/**
 * What the fetch-metadata job writes for a few agents: a registration file (fetched, or failed)
 * and evidence about its website and repository, stamped when written as the job stamps them. At
 * most one of each per agent in a batch: the newest row wins, and two with the same stamp would
 * leave the choice to DuckDB.
 */
function describeAgents(world: World, batch: Batch, chain: Chain): void {
  const { random } = world;
  if (chain.agents.length === 0) return;
  const agents = [...new Set(Array.from({ length: random.int(0, 2) }, () => random.pick(chain.agents)))];
  for (const agent of agents) {
    if (random.chance(0.7)) add(batch, 'registration_files', registrationFile(world, chain, agent));
    if (random.chance(0.5)) {
      const site = random.chance(0.6) ? `https://agent${agent.id}.example` : null;
      const repo = random.chance(0.4) ? `https://github.com/example/agent-${agent.id}` : null;
      add(batch, 'agent_evidence', [chain.name, chain.contracts.identity, agent.id, now, random.chance(0.3),
        site, site ? random.chance(0.7) : null, site ? random.chance(0.5) : null, site ? random.chance(0.5) : null,
        repo, repo ? random.int(0, 500) : null]);
    }
  }
}

function registrationFile(world: World, chain: Chain, agent: Agent): Value[] {
  const { random } = world;
  const head = [chain.name, chain.contracts.identity, agent.id, `https://agents.example/${agent.id}`, now];
  if (random.chance(0.2)) return [...head, 'http_error', 'https', null, null, null, null, null, null, null, null, 'unknown', 'HTTP 404'];
  const services = [
    ...(random.chance(0.6) ? [{ name: 'web', endpoint: `https://agent${agent.id}.example` }] : []),
    ...(random.chance(0.3) ? [{ name: 'ENS', endpoint: `agent${agent.id}.eth` }] : []),
    ...(random.chance(0.5) ? [{ name: 'MCP', endpoint: `https://agent${agent.id}.example/mcp` }] : []),
  ];
  return [...head, 'ok', 'https', null, `Agent ${agent.id}`, random.chance(0.5) ? 'Pays and gets paid' : null, null,
    random.chance(0.5), random.chance(0.8), JSON.stringify(services), null, random.pick(['real', 'placeholder']), null];
}

/**
 * One file of one kind, loaded as `reputation import` loads it: a row replaces any row with the
 * same natural key, whichever import brought it (pipeline/import/load.ts).
 */
function writeImport(world: World, batch: Batch): void {
  const { random } = world;
  const kind = random.pick<ImportKind>(['transfers', 'agents', 'feedback']);
  const rowOf = { transfers: importedTransfer, agents: importedAgent, feedback: importedFeedback }[kind];
  const id = `imp_${world.seed}_${++world.imports}`;
  const { table, key, columns } = kindSpecs[kind];
  const byKey = new Map<string, Value[]>();
  for (let n = random.int(1, 4); n > 0; n--) {
    const row = rowOf(world, id);
    if (!row) continue;
    // A file holds one row per key (the import refuses duplicates).
    const rowKey = key.map((k) => String(row[columns.indexOf(k) + 1])).join('|');
    if (!byKey.has(rowKey)) byKey.set(rowKey, row);
  }
  if (byKey.size === 0) return;
  batch.statements.push(
    `CREATE OR REPLACE TEMP TABLE staged_import AS FROM ${table} LIMIT 0`,
    `INSERT INTO staged_import VALUES ${[...byKey.values()].map(tuple).join(', ')}`,
    `DELETE FROM ${table} t USING staged_import s WHERE ${key.map((k) => `t.${k} = s.${k}`).join(' AND ')}`,
    `INSERT INTO ${table} FROM staged_import`,
    'DROP TABLE staged_import',
    `INSERT INTO imports VALUES ('${id}', '${kind}', '${kind}.jsonl', 'jsonl', ${byKey.size}, ${byKey.size}, 0, utc_now())`,
  );
}

/**
 * A payment the chain brings in a later batch (as exported, maybe naming another payee, payer or
 * sender), a newer export of a transfer imported before, or a transfer no chain row replaces.
 */
function importedTransfer(world: World, id: string): Value[] {
  const { random } = world;
  let chain = random.pick(world.chains);
  let row: ImportedTransfer;
  if (random.chance(0.5)) {
    const truth: Planned = { ...randomPayment(world, chain), at: reserve(world, chain, chain.head + random.int(1, 60), 2) };
    chain.planned.push(truth);
    row = {
      ...truth, chain: chain.name, authorized: true,
      payee: random.chance(0.4) ? someone(world) : truth.payee,
      payer: random.chance(0.1) ? someone(world) : truth.payer,
      sender: random.chance(0.2) ? random.pick([...facilitators, truth.payer]) : truth.sender,
    };
  } else if (world.importedTransfers.length > 0 && random.chance(0.5)) {
    const before = random.pick(world.importedTransfers);
    chain = world.chains.find((c) => c.name === before.chain)!;
    row = { ...before, payee: random.chance(0.5) ? someone(world) : before.payee, value: random.int(1, 50) * 100_000, authorized: random.chance(0.85) };
  } else {
    const at = reserve(world, chain, random.int(1, Math.max(1, chain.head)), 2);
    row = { ...randomPayment(world, chain), chain: chain.name, at, authorized: random.chance(0.85) };
  }
  world.importedTransfers.push(row);
  return [id, row.chain, row.at.block, blockTime(row.at.block), row.at.tx, row.at.log + 1, chain.contracts.token,
    row.payer, row.payee, row.value, row.sender ?? row.payer, row.authorized];
}

/** A new agent known only from the file, an on-chain agent under another owner (the chain's row wins), or a newer export with a new owner. */
function importedAgent(world: World, id: string): Value[] {
  const { random } = world;
  const chain = random.pick(world.chains);
  const importedOnly = chain.agents.filter((a) => !a.onChain);
  const onChain = chain.agents.filter((a) => a.onChain);
  const choice = random.int(1, 20);
  if (choice <= 4 && onChain.length > 0) return agentRow(id, chain, random.pick(onChain).id, someone(world), null);
  const again = choice <= 8 && importedOnly.length > 0;
  const agent = again ? random.pick(importedOnly) : newAgent(chain, someone(world));
  if (again) agent.owner = agent.payTo = someone(world);
  return agentRow(id, chain, agent.id, agent.owner, random.chance(0.5) && chain.head > 0 ? random.int(1, chain.head) : null);
}

function agentRow(id: string, chain: Chain, agent: number, owner: string, block: number | null): Value[] {
  return [id, chain.name, chain.contracts.identity, agent, owner, `https://agents.example/imported/${agent}`, block, null, null];
}

/** A new rating, a chain rating's key (the chain's entry wins), or a newer export of an imported one; some revoked. */
function importedFeedback(world: World, id: string): Value[] | null {
  const { random } = world;
  const chain = random.pick(world.chains);
  if (chain.agents.length === 0) return null;
  const choice = random.int(1, 20);
  let rating: Rating;
  if (choice <= 5 && chain.ratings.length > 0) {
    rating = random.pick(chain.ratings);
  } else if (choice <= 9 && chain.importedRatings.length > 0) {
    rating = random.pick(chain.importedRatings);
  } else {
    rating = newRating(world, chain, random.pick(chain.agents));
    chain.importedRatings.push(rating);
  }
  const [tag, value, decimals] = ratingValue(world);
  const givenAt = random.chance(0.8) && chain.head > 0 ? blockTime(random.int(1, chain.head)) : null;
  return [id, chain.name, chain.contracts.reputation, rating.agent, rating.client, rating.index, value, decimals, tag, '', givenAt,
    random.chance(0.15)];
}

/**
 * Not random, on base: owner A registers agents 1 and 2, owner B agent 3 with wallet W, which
 * client C rates (batch one); agent 1, without a wallet, passes from A to B (batch two); agent 1
 * sets its wallet to W (batch three); C pays someone else (batch four); the fetch-metadata job
 * finds agent 2's website and repository (batch five); agent 1 clears its wallet (batch six).
 * Agent 2 changes in batch two only in how many agents share its payment address (A), agent 3 in
 * batches three and six only in how many share W; in batch four only agent 3 is rescored, for its
 * client's payment, and still counts two agents at W; in batch five only agent 2 changes, in its
 * evidence.
 */
export function paymentAddressChanges(): { batches: string[]; owners: [string, string]; wallet: string } {
  const chain = { name: 'base', contracts: contractsOf('base') } as Chain;
  const owners: [string, string] = [address(0xa11ce), address(0xb0b)];
  const wallet = address(0x3a11e7);
  const { identity, reputation, token } = chain.contracts;
  let txs = 0;
  const batchUpTo = (head: number, events: (batch: Batch) => void) => {
    const batch = newBatch();
    for (const source of sourcesOf(chain)) {
      touch(batch, chain, source, head);
      add(batch, 'ingest_cursors', [chain.name, source, head, hex(head, 64), now]);
    }
    events(batch);
    return sqlOf(batch);
  };
  const transfer = (batch: Batch, block: number, agent: number, from: string, to: string) => {
    touch(batch, chain, 'identity', block);
    add(batch, 'agent_transfers', [chain.name, block, hex(++txs, 64), 0, identity, agent, from, to]);
  };
  const registered = (batch: Batch, block: number, agent: number, owner: string) => {
    transfer(batch, block, agent, zeroAddress, owner);
    add(batch, 'agent_registrations', [chain.name, block, hex(txs, 64), 1, identity, agent, `https://agents.example/${agent}`, owner]);
  };
  const walletUpdate = (batch: Batch, block: number, agent: number, value: string) => {
    touch(batch, chain, 'identity', block);
    add(batch, 'agent_metadata', [chain.name, block, hex(++txs, 64), 0, identity, agent, 'agentWallet', value]);
  };
  const client = address(0xc0ffee);
  return {
    owners,
    wallet,
    batches: [
      batchUpTo(10, (batch) => {
        registered(batch, 2, 1, owners[0]);
        registered(batch, 3, 2, owners[0]);
        registered(batch, 4, 3, owners[1]);
        walletUpdate(batch, 4, 3, wallet);
        touch(batch, chain, 'reputation', 5);
        const tx = hex(++txs, 64);
        add(batch, 'feedback', [chain.name, 5, tx, 0, reputation, 3, client, 1, 80, 0, 'starred', '', '', '', tx]);
      }),
      batchUpTo(20, (batch) => transfer(batch, 15, 1, owners[0], owners[1])),
      batchUpTo(30, (batch) => walletUpdate(batch, 25, 1, wallet)),
      batchUpTo(40, (batch) => {
        const tx = hex(++txs, 64);
        touch(batch, chain, 'token', 35);
        add(batch, 'authorizations_used', [chain.name, 35, tx, 0, token, client, tx]);
        add(batch, 'token_transfers', [chain.name, 35, tx, 1, token, client, address(0x5e11e7), 1_000_000]);
      }),
      (() => {
        const batch = newBatch();
        add(batch, 'agent_evidence', [chain.name, identity, 2, now, true, 'https://agent2.example', true, true, false,
          'https://github.com/example/agent-2', 120]);
        return sqlOf(batch);
      })(),
      batchUpTo(50, (batch) => walletUpdate(batch, 45, 1, zeroAddress)),
    ],
  };
}
