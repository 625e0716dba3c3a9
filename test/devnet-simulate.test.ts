// The simulator on real devnets: it replays exactly from its seed, its registration URIs resolve,
// and its ground truth agrees with what the chain says, read back the way an indexer would.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  keccak256,
  parseAbiItem,
  parseEventLogs,
  stringToBytes,
  toEventSelector,
  toHex,
  type Abi,
  type AbiEvent,
  type Address,
  type Hash,
  type Log,
} from 'viem';
import { loadArtifact } from '../devnet/artifacts.ts';
import { devnetClients } from '../devnet/clients.ts';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { tallyPayments, type TalliedPayment } from '../devnet/payment-tally.ts';
import type { RegistrationServer } from '../devnet/registration-server.ts';
import { simulate, type SimulationTruth } from '../devnet/simulate.ts';
import { addressFacts } from '../devnet/simulate-truth.ts';
import { freePort } from './helpers/free-port.ts';
import { httpsGet } from './helpers/https-get.ts';

const GENESIS = new Date('2025-01-01T12:00:00Z');
const OPTIONS = { agents: 12, payments: 80, seed: 'simulate-test', days: 60 };
const identity = loadArtifact('IdentityRegistry').abi;
const reputation = loadArtifact('ReputationRegistry').abi;
const token = loadArtifact('Eip3009Token').abi;
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const authorizationUsedEvent = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');

let devnet: Devnet;
let server: RegistrationServer;
let truth: SimulationTruth;
/** The ground truth of a first run, on another devnet started at the same time. */
let firstTruth: SimulationTruth;

beforeAll(async () => {
  // The same registration URL both times: agentURIs embed it.
  const registrationBaseUrl = `https://127.0.0.1:${await freePort()}`;
  const run = async () => {
    const chain = await startDevnet({ port: 0, genesisTime: GENESIS });
    const { truth, registrationServer } = await simulate(chain, { ...OPTIONS, registrationBaseUrl });
    return { chain, truth, registrationServer };
  };
  const first = await run();
  firstTruth = first.truth;
  await first.registrationServer.close();
  await first.chain.close();
  ({ chain: devnet, truth, registrationServer: server } = await run());
}, 60_000);

afterAll(async () => {
  await server?.close();
  await devnet?.close();
});

const lower = (address: Address) => address.toLowerCase() as Address;

describe('simulate', () => {
  it('replays the same history for the same seed and genesis time', () => {
    expect(truth).toEqual(firstTruth);
    expect(truth.totals).toMatchObject({ candidate: 80, agents: 12 });
    expect(truth.totals.verified).toBeLessThan(80);
    for (const kind of ['https', 'data-base64', 'data-plain', 'catalog'] as const) {
      expect(truth.agents.some((a) => a.uriKind === kind)).toBe(true);
    }
    for (const count of ['plainTransfers', 'uriUpdates', 'agentWalletsSet', 'agentTransfers', 'sybilFeedback', 'revoked', 'responses'] as const) {
      expect(truth.totals[count], count).toBeGreaterThan(0);
    }
    const owned = Object.values(truth.operators).map((ids) => ids.length);
    expect(Math.max(...owned)).toBeGreaterThanOrEqual(5);
    // The period spans weeks, so active days and months mean something.
    expect(Date.parse(truth.period.to) - Date.parse(truth.period.from)).toBeGreaterThan(40 * 86_400_000);
    expect(Math.max(...Object.values(truth.addresses).map((a) => a.active_months))).toBeGreaterThanOrEqual(2);
  });

  it('registration URIs resolve: https with the CA, data: URIs decode to the file', async () => {
    for (const agent of truth.agents) {
      const uri = agent.agentURI;
      if (agent.uriKind === 'data-base64') {
        expect(uri).toMatch(/^data:application\/json;base64,/);
        expect(JSON.parse(Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64').toString('utf8'))).toEqual(agent.file);
      } else if (agent.uriKind === 'data-plain') {
        expect(uri).toMatch(/^data:application\/json,%7B/);
        expect(JSON.parse(decodeURIComponent(uri.slice(uri.indexOf(',') + 1)))).toEqual(agent.file);
      } else {
        expect(uri.startsWith(`${truth.registrationBaseUrl}/`)).toBe(true);
        const res = await httpsGet(uri, server.caPem);
        if (agent.resolvable) {
          expect(res.status).toBe(200);
          expect(JSON.parse(res.body)).toEqual(agent.file);
        } else {
          expect(res.status === 404 || res.contentType.startsWith('text/html')).toBe(true);
        }
      }
    }
    expect(truth.agents.some((a) => !a.resolvable)).toBe(true);
  });

  it('documents the files link to are served: agent cards, websites, feedback files with their hash', async () => {
    const endpoints = truth.agents.flatMap((a) => {
      const services = (a.file?.services ?? a.file?.endpoints ?? []) as { name?: string; endpoint?: string }[];
      return services.filter((s) => s.endpoint?.startsWith(truth.registrationBaseUrl) && (s.name === 'A2A' || s.name === 'web'));
    });
    expect(endpoints.length).toBeGreaterThan(0);
    for (const { name, endpoint } of endpoints) {
      const res = await httpsGet(endpoint!, server.caPem);
      expect(res.status).toBe(200);
      if (name === 'A2A') expect(JSON.parse(res.body)).toMatchObject({ protocolVersion: '0.3.0', skills: expect.any(Array) });
      else expect(res.body).toMatch(/MCP/);
    }

    const withFiles = truth.feedback.filter((f) => f.feedbackURI !== '');
    expect(withFiles.length).toBeGreaterThan(0);
    const { publicClient } = devnetClients(devnet);
    for (const feedback of withFiles) {
      const res = await httpsGet(feedback.feedbackURI, server.caPem);
      expect(keccak256(stringToBytes(res.body))).toBe(feedback.feedbackHash);
      const file = JSON.parse(res.body);
      expect(file).toMatchObject({ agentId: feedback.agentId, value: feedback.value, tag1: feedback.tag1 });
      // The proof of payment is a real x402 payment from the client.
      const { logs } = await publicClient.getTransactionReceipt({ hash: file.proofOfPayment.txHash });
      const [authorization] = parseEventLogs({ abi: token, logs, eventName: 'AuthorizationUsed' });
      expect(lower(authorization!.args.authorizer)).toBe(feedback.client);
    }
  });

  it('agrees with chain reads: owners, URIs, wallets, metadata, feedback and token balances', async () => {
    const { publicClient } = devnetClients(devnet);
    const registry = devnet.identityRegistry.address;
    for (const agent of truth.agents) {
      const id = BigInt(agent.agentId);
      expect(lower(await publicClient.readContract({ address: registry, abi: identity, functionName: 'ownerOf', args: [id] }))).toBe(agent.owner);
      expect(await publicClient.readContract({ address: registry, abi: identity, functionName: 'tokenURI', args: [id] })).toBe(agent.agentURI);
      const wallet = await publicClient.readContract({ address: registry, abi: identity, functionName: 'getMetadata', args: [id, 'agentWallet'] });
      expect(wallet).toBe(agent.agentWallet ?? '0x');
      for (const [key, value] of Object.entries(agent.metadata)) {
        expect(await publicClient.readContract({ address: registry, abi: identity, functionName: 'getMetadata', args: [id, key] })).toBe(value);
      }
    }
    // No agent beyond the ones the truth knows of (ERC721NonexistentToken, a bare revert on ganache).
    await expect(
      publicClient.readContract({ address: registry, abi: identity, functionName: 'ownerOf', args: [BigInt(truth.agents.length)] }),
    ).rejects.toThrow(/revert/);

    for (const f of truth.feedback) {
      const stored = await publicClient.readContract({
        address: devnet.reputationRegistry.address,
        abi: reputation,
        functionName: 'readFeedback',
        args: [BigInt(f.agentId), f.client, BigInt(f.feedbackIndex)],
      });
      expect(stored).toEqual([BigInt(f.value), f.valueDecimals, f.tag1, f.tag2, f.revoked]);
    }
    for (const r of truth.responses) {
      const count = await publicClient.readContract({
        address: devnet.reputationRegistry.address,
        abi: reputation,
        functionName: 'getResponseCount',
        args: [BigInt(r.agentId), r.client, BigInt(r.feedbackIndex), [r.responder]],
      });
      expect(count).toBe(BigInt(truth.responses.filter((o) => o.agentId === r.agentId && o.client === r.client && o.feedbackIndex === r.feedbackIndex && o.responder === r.responder).length));
    }

    for (const [address, balance] of Object.entries(truth.balances)) {
      expect(await publicClient.readContract({ address: devnet.token.address, abi: token, functionName: 'balanceOf', args: [address as Address] })).toBe(BigInt(balance));
    }
  });

  it("per-address x402 facts equal what the chain's logs say", async () => {
    const { publicClient } = devnetClients(devnet);
    const range = { address: devnet.token.address, fromBlock: BigInt(truth.blocks.first), toBlock: BigInt(truth.blocks.last) };
    const [transfers, authorizations] = await Promise.all([
      publicClient.getLogs({ ...range, event: transferEvent }),
      publicClient.getLogs({ ...range, event: authorizationUsedEvent }),
    ]);
    expect(transfers).toHaveLength(truth.totals.tokenTransferLogs);
    expect(authorizations).toHaveLength(truth.totals.candidate);

    // As ingestion does: a Transfer in a transaction with an AuthorizationUsed is an x402
    // payment, verified when a known facilitator sent the transaction.
    const authorized = new Set(authorizations.map((l) => l.transactionHash));
    const facilitators = devnet.facilitators.map(lower);
    const blockTimes = new Map<bigint, bigint>();
    const payments: TalliedPayment[] = [];
    for (const log of transfers.filter((l) => authorized.has(l.transactionHash))) {
      const tx = await publicClient.getTransaction({ hash: log.transactionHash as Hash });
      if (!blockTimes.has(log.blockNumber!)) blockTimes.set(log.blockNumber!, (await publicClient.getBlock({ blockNumber: log.blockNumber! })).timestamp);
      payments.push({
        from: lower(log.args.from!),
        to: lower(log.args.to!),
        value: log.args.value!,
        verified: facilitators.includes(lower(tx.from)),
        timestamp: blockTimes.get(log.blockNumber!)!,
      });
    }
    expect(addressFacts(tallyPayments(payments))).toEqual(truth.addresses);
  });

  it('sybil clients are funded with ETH only and never pay or get paid', async () => {
    const { publicClient } = devnetClients(devnet);
    const sybils = [...new Set(truth.feedback.filter((f) => f.sybil).map((f) => f.client))];
    expect(sybils.length).toBeGreaterThanOrEqual(3);
    expect(sybils.every((s) => truth.roles.sybils.includes(s))).toBe(true);
    const padded = (address: Address) => `0x${address.slice(2).padStart(64, '0')}` as Hash;
    for (const sybil of sybils) {
      expect(truth.addresses[sybil]).toBeUndefined();
      expect(truth.balances[sybil]).toBeUndefined();
      expect(await publicClient.getBalance({ address: sybil })).toBeGreaterThan(0n);
      const transferTopic = toEventSelector(transferEvent);
      const asSender = await publicClient.request({ method: 'eth_getLogs', params: [{ address: devnet.token.address, fromBlock: '0x0', toBlock: 'latest', topics: [transferTopic, padded(sybil)] }] });
      const asReceiver = await publicClient.request({ method: 'eth_getLogs', params: [{ address: devnet.token.address, fromBlock: '0x0', toBlock: 'latest', topics: [transferTopic, null, padded(sybil)] }] });
      expect([asSender, asReceiver]).toEqual([[], []]);
    }
    // They rate only the targets, near-perfectly; honest clients all paid someone.
    for (const f of truth.feedback) {
      if (f.sybil) {
        expect(truth.roles.sybilTargets).toContain(f.agentId);
        expect(f.value).toBeGreaterThanOrEqual(95);
      } else {
        expect(truth.addresses[f.client]!.candidate_as_payer).toBeGreaterThan(0);
      }
    }
  });

  it('registry events carry the official topic0s of the ERC-8004 ABIs', async () => {
    const { publicClient } = devnetClients(devnet);
    const official = (name: string) => {
      const abi = JSON.parse(readFileSync(new URL(`../../shared/data/erc8004/abis/${name}.json`, import.meta.url), 'utf8')) as Abi;
      return new Map(abi.filter((item): item is AbiEvent => item.type === 'event').map((event) => [toEventSelector(event), event.name]));
    };
    const logsOf = (address: Address): Promise<Log[]> => publicClient.getLogs({ address, fromBlock: 0n, toBlock: 'latest' });
    const seen = new Set<string>();
    for (const [name, address] of [
      ['IdentityRegistry', devnet.identityRegistry.address],
      ['ReputationRegistry', devnet.reputationRegistry.address],
    ] as const) {
      const events = official(name);
      for (const log of await logsOf(address)) {
        expect(events.has(log.topics[0]!), `${name} topic0 ${log.topics[0]}`).toBe(true);
        seen.add(`${name}.${events.get(log.topics[0]!)}`);
      }
    }
    // A string indexed parameter is a topic holding the keccak256 of the string.
    const feedbackLogs = parseEventLogs({ abi: reputation, logs: await logsOf(devnet.reputationRegistry.address), eventName: 'NewFeedback' });
    expect(feedbackLogs).toHaveLength(truth.feedback.length);
    for (const log of feedbackLogs) {
      const { agentId, clientAddress, feedbackIndex } = log.args;
      const feedback = truth.feedback.find((f) => f.agentId === Number(agentId) && f.client === lower(clientAddress) && f.feedbackIndex === Number(feedbackIndex));
      expect(log.topics[3]).toBe(keccak256(toHex(feedback!.tag1)));
    }
    expect([...seen].sort()).toEqual(
      [
        'IdentityRegistry.MetadataSet',
        'IdentityRegistry.MetadataUpdate',
        'IdentityRegistry.Registered',
        'IdentityRegistry.Transfer',
        'IdentityRegistry.URIUpdated',
        'ReputationRegistry.FeedbackRevoked',
        'ReputationRegistry.NewFeedback',
        'ReputationRegistry.ResponseAppended',
      ].sort(),
    );
  });
});
