// The devnet on a real (in-process) chain: x402 payments look like they do on Base.
import { afterEach, describe, expect, it } from 'vitest';
import { keccak256, parseAbiItem, parseUnits, stringToBytes, type Address } from 'viem';
import { loadArtifact } from '../devnet/artifacts.ts';
import { devnetClients } from '../devnet/clients.ts';
import { startDevnet, INITIAL_USDC, type Devnet } from '../devnet/index.ts';
import { runThinScenario } from '../devnet/scenario.ts';
import { chainProfiles } from '../pipeline/chain/profiles.ts';
import { payWithAuthorization, plainTransfer } from '../devnet/x402.ts';

const AUTHORIZATION_USED_TOPIC = '0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5';
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const { abi } = loadArtifact('Eip3009Token');
const TIMEOUT = 60_000;

describe('devnet', () => {
  let devnet: Devnet | undefined;
  afterEach(async () => {
    await devnet?.close();
    devnet = undefined;
  });

  async function start() {
    devnet = await startDevnet({ port: 0 });
    return { devnet, ...devnetClients(devnet) };
  }

  it('starts on a free port with the token deployed and known facilitators', { timeout: TIMEOUT }, async () => {
    const { devnet, publicClient } = await start();
    expect(devnet.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await publicClient.getChainId()).toBe(1337);
    expect(devnet.facilitators).toHaveLength(3);
    // The shipped devnet chain profile relies on these addresses being fixed by the default seed.
    const profile = chainProfiles.devnet as Record<'token' | 'identityRegistry' | 'reputationRegistry' | 'permit2Proxy', { address: string }>;
    expect(devnet.token.address.toLowerCase()).toBe(profile.token.address);
    expect(devnet.identityRegistry.address.toLowerCase()).toBe(profile.identityRegistry.address);
    expect(devnet.reputationRegistry.address.toLowerCase()).toBe(profile.reputationRegistry.address);
    expect(devnet.permit2Proxy.address.toLowerCase()).toBe(profile.permit2Proxy.address);
    // One after the other, before the mints.
    expect(devnet.identityRegistry.deployBlock).toBe(devnet.token.deployBlock + 1n);
    expect(devnet.reputationRegistry.deployBlock).toBe(devnet.token.deployBlock + 2n);
    expect(devnet.facilitators[0]!.toLowerCase()).toBe('0x73b2b8df52fbe7c40fe78db52e3dffdd5db5ad07');
    const read = (functionName: 'name' | 'symbol' | 'version') =>
      publicClient.readContract({ address: devnet.token.address, abi, functionName });
    expect([await read('name'), await read('symbol'), await read('version')]).toEqual(['USD Coin', 'USDC', '2']);
    expect(await publicClient.readContract({ address: devnet.token.address, abi, functionName: 'decimals' })).toBe(6);
    const balance = await publicClient.readContract({
      address: devnet.token.address,
      abi,
      functionName: 'balanceOf',
      args: [devnet.accounts[1]!.address],
    });
    expect(balance).toBe(INITIAL_USDC);
  });

  it('an x402 payment is one facilitator transaction with AuthorizationUsed then Transfer; replays revert', { timeout: TIMEOUT }, async () => {
    const { devnet, publicClient, walletClient } = await start();
    const payer = devnet.accounts[1]!;
    const payee = devnet.accounts[2]!;
    const facilitator = devnet.facilitators[0]!;
    const nonce = keccak256(stringToBytes('test-nonce'));
    const payment = {
      publicClient,
      walletClient,
      token: devnet.token.address,
      payer,
      to: payee.address,
      value: parseUnits('1.25', 6),
      facilitator,
      nonce,
    };
    const { txHash, blockNumber } = await payWithAuthorization(payment);

    const tx = await publicClient.getTransaction({ hash: txHash });
    expect(tx.from.toLowerCase()).toBe(facilitator.toLowerCase());
    expect(tx.to?.toLowerCase()).toBe(devnet.token.address.toLowerCase());

    const logs = await publicClient.getLogs({ address: devnet.token.address, fromBlock: blockNumber, toBlock: blockNumber });
    expect(logs.map((l) => l.transactionHash)).toEqual([txHash, txHash]);
    expect(logs.map((l) => l.topics[0])).toEqual([AUTHORIZATION_USED_TOPIC, TRANSFER_TOPIC]);
    expect(logs[0]!.topics[1]).toBe(topicAddress(payer.address));
    expect(logs[0]!.topics[2]).toBe(nonce);

    const [transfer] = await publicClient.getLogs({ address: devnet.token.address, event: transferEvent, fromBlock: blockNumber, toBlock: blockNumber });
    expect(transfer!.args).toEqual({ from: payer.address, to: payee.address, value: parseUnits('1.25', 6) });

    expect(await publicClient.readContract({ address: devnet.token.address, abi, functionName: 'authorizationState', args: [payer.address, nonce] })).toBe(true);
    await expect(payWithAuthorization({ ...payment, facilitator: devnet.facilitators[1]! })).rejects.toThrow(/authorization is used/);
  });

  it('a plain transfer emits only Transfer, sent by the holder', { timeout: TIMEOUT }, async () => {
    const { devnet, publicClient, walletClient } = await start();
    const from = devnet.accounts[1]!;
    const to = devnet.accounts[2]!.address;
    const { txHash, blockNumber } = await plainTransfer({ publicClient, walletClient, token: devnet.token.address, from, to, value: 42n });
    expect((await publicClient.getTransaction({ hash: txHash })).from).toBe(from.address.toLowerCase());
    const logs = await publicClient.getLogs({ address: devnet.token.address, fromBlock: blockNumber, toBlock: blockNumber });
    expect(logs.map((l) => l.topics[0])).toEqual([TRANSFER_TOPIC]);
  });

  it("runThinScenario's ground truth matches the chain", { timeout: TIMEOUT }, async () => {
    const { devnet, publicClient } = await start();
    const balanceOf = (address: Address) =>
      publicClient.readContract({ address: devnet.token.address, abi, functionName: 'balanceOf', args: [address] });
    const addresses = devnet.accounts.map((a) => a.address.toLowerCase() as Address);
    const before = await Promise.all(addresses.map(balanceOf));

    const scenario = await runThinScenario(devnet);

    expect(scenario.payments.length).toBeGreaterThanOrEqual(12);
    expect(scenario.payments.filter((p) => !p.verified).length).toBeGreaterThanOrEqual(2);
    const facilitators = devnet.facilitators.map((f) => f.toLowerCase());
    for (const p of scenario.payments) {
      const tx = await publicClient.getTransaction({ hash: p.txHash });
      expect(tx.from).toBe(p.submitter);
      expect(facilitators.includes(p.submitter)).toBe(p.verified);
      const logs = await publicClient.getLogs({ address: devnet.token.address, fromBlock: p.blockNumber, toBlock: p.blockNumber });
      expect(logs.map((l) => l.topics[0])).toEqual([AUTHORIZATION_USED_TOPIC, TRANSFER_TOPIC]);
    }

    for (const [i, address] of addresses.entries()) {
      const truth = scenario.addresses[address];
      const plainOut = sum(scenario.plainTransfers.filter((t) => t.from === address).map((t) => t.value));
      const plainIn = sum(scenario.plainTransfers.filter((t) => t.to === address).map((t) => t.value));
      const expected = before[i]! - (truth?.volume_as_payer ?? 0n) + (truth?.volume_as_payee ?? 0n) - plainOut + plainIn;
      expect(await balanceOf(address)).toBe(expected);
    }

    const { heavyMerchant, lightMerchant, outsider, bystander } = scenario.roles;
    const heavy = scenario.addresses[heavyMerchant]!;
    expect(heavy.verified_as_payee).toBe(8);
    expect(heavy.counterparties).toHaveLength(6);
    expect(heavy.active_days).toBe(5);
    const light = scenario.addresses[lightMerchant]!;
    expect([light.verified_as_payee, light.active_days, light.counterparties.length]).toEqual([1, 1, 1]);
    // The outsider only submits: it neither pays nor gets paid.
    expect(scenario.addresses[outsider]).toBeUndefined();
    expect(scenario.addresses[bystander]).toBeUndefined();
  });
});

function topicAddress(address: Address) {
  return `0x${address.slice(2).toLowerCase().padStart(64, '0')}`;
}

function sum(values: bigint[]) {
  return values.reduce((a, b) => a + b, 0n);
}
