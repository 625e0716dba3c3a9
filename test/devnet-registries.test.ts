// Our minimal ERC-8004 registries on a real chain: the official ABI's signatures, the deployed
// registry's event order, and the rules the spec gives (reserved agentWallet key, wallet proofs,
// no self-feedback, 1-based feedback indexes).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  keccak256,
  parseEventLogs,
  stringToHex,
  toEventSelector,
  toFunctionSelector,
  zeroHash,
  type Abi,
  type AbiEvent,
  type AbiFunction,
  type Address,
  type PrivateKeyAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signAgentWallet } from '../devnet/agent-wallet.ts';
import { loadArtifact } from '../devnet/artifacts.ts';
import { devnetClients, type DevnetClients } from '../devnet/clients.ts';
import { startDevnet, type Devnet } from '../devnet/index.ts';

const identity = loadArtifact('IdentityRegistry').abi;
const reputation = loadArtifact('ReputationRegistry').abi;

let devnet: Devnet;
let clients: DevnetClients;
let owner: PrivateKeyAccount;
let client: PrivateKeyAccount;
let stranger: PrivateKeyAccount;

beforeAll(async () => {
  devnet = await startDevnet({ port: 0 });
  clients = devnetClients(devnet);
  [, owner, client, stranger] = devnet.accounts as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount];
});
afterAll(() => devnet?.close());

/** Sends a call to a registry after simulating it, so a revert surfaces with its reason. */
async function send(registry: 'identity' | 'reputation', account: PrivateKeyAccount, functionName: string, args: readonly unknown[]) {
  const [address, abi] = registry === 'identity' ? [devnet.identityRegistry.address, identity as Abi] : [devnet.reputationRegistry.address, reputation as Abi];
  const { request } = await clients.publicClient.simulateContract({ account, address, abi, functionName, args });
  const hash = await clients.walletClient.writeContract({ ...request, chain: clients.walletClient.chain });
  return clients.publicClient.waitForTransactionReceipt({ hash });
}

const read = (functionName: string, args: readonly unknown[]) =>
  clients.publicClient.readContract({ address: devnet.identityRegistry.address, abi: identity as Abi, functionName, args });

async function register(account: PrivateKeyAccount, args: readonly unknown[] = ['https://agent.example/agent.json']): Promise<bigint> {
  const receipt = await send('identity', account, 'register', args);
  return parseEventLogs({ abi: identity, logs: receipt.logs, eventName: 'Registered' })[0]!.args.agentId;
}

async function walletProof(wallet: PrivateKeyAccount, agentId: bigint, agentOwner: Address, deadlineIn = 120n) {
  const { timestamp } = await clients.publicClient.getBlock();
  const deadline = timestamp + deadlineIn;
  const signature = await signAgentWallet({ wallet, registry: devnet.identityRegistry.address, chainId: devnet.chainId, agentId, owner: agentOwner, deadline });
  return [agentId, wallet.address, deadline, signature] as const;
}

describe('ERC-8004 registries', () => {
  it("every event and function of ours is in the official ABI, with the same selector", () => {
    for (const name of ['IdentityRegistry', 'ReputationRegistry'] as const) {
      const official = JSON.parse(readFileSync(new URL(`../../shared/data/erc8004/abis/${name}.json`, import.meta.url), 'utf8')) as Abi;
      const selectors = (abi: Abi) =>
        abi.flatMap((item) => (item.type === 'event' ? [toEventSelector(item as AbiEvent)] : item.type === 'function' ? [toFunctionSelector(item as AbiFunction)] : []));
      const ours = selectors(loadArtifact(name).abi as Abi);
      expect(ours.length).toBeGreaterThan(10);
      expect(ours.filter((s) => !selectors(official).includes(s))).toEqual([]);
    }
  });

  it('register mints ids from 0: Transfer, MetadataUpdate, Registered, then MetadataSet of the owner as agentWallet', async () => {
    const receipt = await send('identity', owner, 'register', ['https://agent.example/0.json', [{ metadataKey: 'category', metadataValue: stringToHex('search') }]]);
    const events = parseEventLogs({ abi: identity, logs: receipt.logs });
    expect(events.map((e) => e.eventName)).toEqual(['Transfer', 'MetadataUpdate', 'Registered', 'MetadataSet', 'MetadataSet']);
    const [transfer, , registered, wallet, extra] = events as any[];
    expect(transfer.args).toEqual({ from: '0x0000000000000000000000000000000000000000', to: owner.address, tokenId: 0n });
    expect(registered.args).toEqual({ agentId: 0n, agentURI: 'https://agent.example/0.json', owner: owner.address });
    expect(wallet.args).toEqual({ agentId: 0n, indexedMetadataKey: keccak256(stringToHex('agentWallet')), metadataKey: 'agentWallet', metadataValue: owner.address.toLowerCase() });
    expect(extra.args.metadataKey).toBe('category');
    expect(await read('getMetadata', [0n, 'category'])).toBe(stringToHex('search'));

    // register() stores no URI: no MetadataUpdate, an empty agentURI.
    const bare = parseEventLogs({ abi: identity, logs: (await send('identity', owner, 'register', [])).logs });
    expect(bare.map((e) => e.eventName)).toEqual(['Transfer', 'Registered', 'MetadataSet']);
    expect((bare[1] as any).args.agentId).toBe(1n);
    expect(await read('tokenURI', [1n])).toBe('');
  });

  it('agentWallet is reserved: only setAgentWallet, with the new wallet\'s EIP-712 proof, changes it', async () => {
    const agentId = await register(owner);
    await expect(send('identity', owner, 'setMetadata', [agentId, 'agentWallet', stranger.address])).rejects.toThrow(/reserved key/);
    await expect(send('identity', owner, 'register', ['uri', [{ metadataKey: 'agentWallet', metadataValue: stranger.address }]])).rejects.toThrow(/reserved key/);

    const wallet = privateKeyToAccount(generatePrivateKey());
    const impostor = privateKeyToAccount(generatePrivateKey());
    const [id, , deadline, forged] = await walletProof(impostor, agentId, owner.address);
    await expect(send('identity', owner, 'setAgentWallet', [id, wallet.address, deadline, forged])).rejects.toThrow(/invalid wallet sig/);
    await expect(send('identity', owner, 'setAgentWallet', await walletProof(wallet, agentId, owner.address, 3_600n))).rejects.toThrow(/deadline too far/);
    await expect(send('identity', owner, 'setAgentWallet', await walletProof(wallet, agentId, owner.address, -10n))).rejects.toThrow(/expired/);
    await expect(send('identity', stranger, 'setAgentWallet', await walletProof(wallet, agentId, owner.address))).rejects.toThrow(/Not authorized/);

    await send('identity', owner, 'setAgentWallet', await walletProof(wallet, agentId, owner.address));
    expect(await read('getAgentWallet', [agentId])).toBe(wallet.address);
    expect(await read('getMetadata', [agentId, 'agentWallet'])).toBe(wallet.address.toLowerCase());
  });

  it('a transfer clears agentWallet (MetadataSet to empty, before the Transfer); only the owner or approved may transfer', async () => {
    const agentId = await register(owner);
    // A custom error (ERC721InsufficientApproval), which ganache reports as a bare revert.
    await expect(send('identity', stranger, 'transferFrom', [owner.address, stranger.address, agentId])).rejects.toThrow(/revert/);
    await send('identity', owner, 'approve', [stranger.address, agentId]);
    const receipt = await send('identity', stranger, 'transferFrom', [owner.address, client.address, agentId]);
    const events = parseEventLogs({ abi: identity, logs: receipt.logs });
    expect(events.map((e) => e.eventName)).toEqual(['MetadataSet', 'Transfer']);
    expect((events[0] as any).args).toMatchObject({ metadataKey: 'agentWallet', metadataValue: '0x' });
    expect(await read('ownerOf', [agentId])).toBe(client.address);
    expect(await read('getMetadata', [agentId, 'agentWallet'])).toBe('0x');
    expect(await read('getAgentWallet', [agentId])).toBe('0x0000000000000000000000000000000000000000');
  });

  it('feedback: not from the owner or an approved operator, indexes from 1 per client, revocable once, answerable', async () => {
    const agentId = await register(owner);
    const feedback = (value: bigint, decimals: number, tag1 = 'starred') => [agentId, value, decimals, tag1, '', '', '', zeroHash] as const;
    await expect(send('reputation', owner, 'giveFeedback', feedback(90n, 0))).rejects.toThrow(/Self-feedback not allowed/);
    await send('identity', owner, 'setApprovalForAll', [stranger.address, true]);
    await expect(send('reputation', stranger, 'giveFeedback', feedback(90n, 0))).rejects.toThrow(/Self-feedback not allowed/);
    await expect(send('reputation', client, 'giveFeedback', [999n, ...feedback(90n, 0).slice(1)])).rejects.toThrow(/Agent does not exist/);
    await expect(send('reputation', client, 'giveFeedback', feedback(90n, 19))).rejects.toThrow(/too many decimals/);

    const indexes = [];
    for (const args of [feedback(87n, 0), feedback(9977n, 2, 'uptime')]) {
      const receipt = await send('reputation', client, 'giveFeedback', args);
      const [event] = parseEventLogs({ abi: reputation, logs: receipt.logs, eventName: 'NewFeedback' });
      expect(event!.topics[3]).toBe(keccak256(stringToHex(args[3])));
      indexes.push(event!.args.feedbackIndex);
    }
    expect(indexes).toEqual([1n, 2n]);
    const reads = { address: devnet.reputationRegistry.address, abi: reputation } as const;
    expect(await clients.publicClient.readContract({ ...reads, functionName: 'readFeedback', args: [agentId, client.address, 2n] })).toEqual([9977n, 2, 'uptime', '', false]);

    await send('reputation', client, 'revokeFeedback', [agentId, 1n]);
    await expect(send('reputation', client, 'revokeFeedback', [agentId, 1n])).rejects.toThrow(/Already revoked/);
    await expect(send('reputation', client, 'revokeFeedback', [agentId, 3n])).rejects.toThrow(/index out of bounds/);

    await expect(send('reputation', owner, 'appendResponse', [agentId, client.address, 1n, '', zeroHash])).rejects.toThrow(/Empty URI/);
    await send('reputation', owner, 'appendResponse', [agentId, client.address, 1n, 'https://agent.example/refund.json', zeroHash]);
    await send('reputation', stranger, 'appendResponse', [agentId, client.address, 1n, 'https://watchdog.example/spam.json', zeroHash]);
    const count = (responders: Address[]) =>
      clients.publicClient.readContract({ ...reads, functionName: 'getResponseCount', args: [agentId, client.address, 1n, responders] });
    expect([await count([]), await count([owner.address])]).toEqual([2n, 1n]);
    expect(await clients.publicClient.readContract({ ...reads, functionName: 'getClients', args: [agentId] })).toEqual([client.address]);
  });
});
