// Wallet claims over real HTTP (spec 2.7 wallet_claimed, 3.4; docs/decisions.md "Wallet claims"):
// the challenge and its refusals, SIWE claims by an EOA, by a contract wallet deployed on the
// devnet (ERC-1271) and by one not deployed yet (ERC-6492), SIWS claims by a real ed25519 key, and
// every way a claim is refused: another signer, a replayed, expired, foreign or unknown nonce,
// another domain, a changed message, a contract signer on a chain without an RPC URL; concurrent
// claims of one nonce (exactly one wins); the newest claim of a wallet wins.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { encodeFunctionData, hashMessage, keccak256, serializeErc6492Signature, toHex, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage, parseSiweMessage } from 'viem/siwe';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { createSession } from '../identity/sessions.ts';
import { operations } from '../api/openapi/operations.ts';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { devnetClients, type DevnetClients } from '../devnet/clients.ts';
import { loadArtifact } from '../devnet/artifacts.ts';
import { tempDataDir } from './helpers/temp.ts';
import { clearPerson, sdnTinyCsv, submitSandbox } from './helpers/identity.ts';

const minute = 60_000;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

describe('wallet claims', () => {
  const dataDir = tempDataDir('wallet-claims');
  let devnet: Devnet;
  let chain: DevnetClients;
  let factory: Address;
  let server: RunningServer;
  let clock = Date.parse('2026-06-01T12:00:00Z');
  // Two accounts of a plan whose per-second window takes a burst, and one on the free plan.
  let a: { id: string; key: string };
  let b: { id: string; key: string };
  let free: { id: string; key: string };
  let flaky: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    chain = devnetClients(devnet);
    factory = await deploy(devnet.accounts[6]!, loadArtifact('OwnedWalletFactory'));
    // A second EVM chain whose RPC URL answers nothing (nothing listens on port 1), and a third, the
    // devnet behind a provider that rate-limits every eth_call (HTTP 429).
    flaky = await startRateLimitingProxy(devnet.rpcUrl);
    const configFile = path.join(tempDataDir('wallet-claims-config'), 'config.json');
    const token = { address: '0x0000000000000000000000000000000000000bad', startBlock: 0 };
    writeFileSync(
      configFile,
      JSON.stringify({
        chains: {
          offline: { chainId: 31337, rpcUrl: 'http://127.0.0.1:1', token, facilitatorNetwork: 'base' },
          flaky: { chainId: 31338, rpcUrl: flaky.url, token, facilitatorNetwork: 'base' },
        },
      }),
    );
    const config = loadConfig({
      REPUTATION_CONFIG: configFile,
      DATA_DIR: dataDir,
      PORT: '0',
      RPC_URL_DEVNET: devnet.rpcUrl,
      INGEST_INTERVAL_SECONDS: '3600',
      SCORE_INTERVAL_SECONDS: '3600',
      SCORE_FULL_INTERVAL_SECONDS: '0',
      SANCTIONS_LIST_SOURCE: sdnTinyCsv,
    });
    server = await startServer(config, silentLogger, { now: () => new Date(clock) });
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    const account = async (plan: 'scale' | 'free') => {
      const created = await createAccount(server.store, { plan }, server.keys);
      return { id: created.id, key: created.api_key };
    };
    [a, b, free] = [await account('scale'), await account('scale'), await account('free')];
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await devnet?.close();
    await flaky?.close();
  });
  // The clock stands still within a test; a key's per-second window must not carry over.
  beforeEach(() => {
    clock += 1_000;
  });

  async function post(path: string, key: string | null, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...(key ? { 'X-API-Key': key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer: Answer = { status: res.status, headers: res.headers, body: await res.json() };
    // Every answer is one the OpenAPI document promises for the operation: status, codes, body.
    const documented = operations.find((op) => op.method === 'post' && op.path === path)?.responses[res.status];
    expect(documented, `${path} answered ${res.status}: ${JSON.stringify(answer.body)}`).toBeDefined();
    if (documented!.errorCodes) expect(documented!.errorCodes).toContain(answer.body.error?.code);
    const parsed = documented!.body!.safeParse(answer.body);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    return answer;
  }
  const challenge = (key: string, body: unknown, headers?: Record<string, string>) => post('/v1/wallets/challenge', key, body, headers);
  const claim = (key: string, body: unknown) => post('/v1/wallets/claim', key, body);

  async function issued(key: string, body: Record<string, unknown>): Promise<{ nonce: string; message: string; expires_at: string }> {
    const res = await challenge(key, body);
    if (res.status !== 200) throw new Error(`challenge answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A fresh EOA's challenge for `key`, signed by `signer` (the wallet itself unless given). */
  async function signedEvm(key: string, options: { signer?: PrivateKeyAccount; chainId?: number } = {}) {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const c = await issued(key, { address: wallet.address, network: 'evm', ...(options.chainId ? { chain_id: options.chainId } : {}) });
    const signature = await (options.signer ?? wallet).signMessage({ message: c.message });
    return { wallet, ...c, signature };
  }

  async function deploy(account: PrivateKeyAccount, artifact: { abi: any; bytecode: Hex }, args: readonly unknown[] = []): Promise<Address> {
    const hash = await chain.walletClient.deployContract({ ...artifact, args, account, chain: chain.walletClient.chain });
    return (await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
  }

  /** The devnet address of the OwnedWallet of (owner, salt); deployed through the factory when asked. */
  async function contractWallet(owner: Address, label: string, options: { deployed: boolean }): Promise<{ address: Address; deployCall: Hex }> {
    const { abi } = loadArtifact('OwnedWalletFactory');
    const salt = keccak256(toHex(label));
    const address = await chain.publicClient.readContract({ address: factory, abi, functionName: 'walletAddress', args: [owner, salt] });
    if (options.deployed) {
      const hash = await chain.walletClient.writeContract({ account: devnet.accounts[6]!, address: factory, abi, functionName: 'deploy', args: [owner, salt], chain: chain.walletClient.chain });
      await chain.publicClient.waitForTransactionReceipt({ hash });
    }
    return { address, deployCall: encodeFunctionData({ abi, functionName: 'deploy', args: [owner, salt] }) };
  }

  const claimRows = (wallet: string) =>
    server.store.read(`SELECT account_id, method, chain_id FROM wallet_claims WHERE wallet = $1 ORDER BY claimed_at`, [wallet]);
  const usedAt = async (nonce: string) => (await server.store.read(`SELECT used_at FROM wallet_challenges WHERE nonce = $1`, [nonce]))[0]?.used_at ?? null;

  describe('POST /v1/wallets/challenge', () => {
    it("answers an EIP-4361 message for this service's domain and URI, naming the account, with a 10-minute nonce", async () => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      const res = await challenge(a.key, { address: wallet.address.toLowerCase(), network: 'evm' });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'message', 'nonce']);
      expect(res.body.nonce).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(res.body.expires_at).toBe(new Date(clock + 10 * minute).toISOString());
      const fields = parseSiweMessage(res.body.message);
      const base = new URL(server.url);
      expect(fields).toMatchObject({ scheme: 'http', domain: base.host, address: wallet.address, uri: server.url, version: '1', chainId: 1, nonce: res.body.nonce });
      expect(fields.statement).toContain(`links this wallet to account ${a.id}`);
      expect(fields.issuedAt?.toISOString()).toBe(new Date(clock).toISOString());
      expect(fields.expirationTime?.toISOString()).toBe(res.body.expires_at);
      // viem builds the very same text from those fields.
      expect(res.body.message).toBe(createSiweMessage(fields as Parameters<typeof createSiweMessage>[0]));
      const [row] = await server.store.read(`SELECT account_id, network, wallet, chain_id, message, used_at FROM wallet_challenges WHERE nonce = $1`, [res.body.nonce]);
      expect(row).toEqual({ account_id: a.id, network: 'evm', wallet: wallet.address.toLowerCase(), chain_id: '1', message: res.body.message, used_at: null });
    });

    it('names the chain asked for, and never takes the domain from the request', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      const res = await challenge(a.key, { address: wallet.address, network: 'evm', chain_id: 8453 }, { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example' });
      expect(res.status).toBe(200);
      expect(parseSiweMessage(res.body.message)).toMatchObject({ domain: new URL(server.url).host, uri: server.url, chainId: 8453 });
      expect(res.body.message).not.toContain('evil.example');
    });

    it('answers a Sign-In With Solana message for a Solana key', async () => {
      const address = bs58.encode(ed25519.getPublicKey(ed25519.utils.randomSecretKey()));
      const res = await challenge(a.key, { address, network: 'solana' });
      expect(res.status).toBe(200);
      const host = new URL(server.url).host;
      expect(res.body.message).toBe(
        `${host} wants you to sign in with your Solana account:\n${address}\n\n` +
          `Signing this message links this wallet to account ${a.id} at ${host}, proving you control it. It sends no transaction and moves no funds.\n\n` +
          `URI: ${server.url}\nVersion: 1\nChain ID: mainnet\nNonce: ${res.body.nonce}\nIssued At: ${new Date(clock).toISOString()}\nExpiration Time: ${res.body.expires_at}`,
      );
    });

    it('is open to every plan, and needs a key', async () => {
      expect((await challenge(free.key, { address: privateKeyToAccount(generatePrivateKey()).address, network: 'evm' })).status).toBe(200);
      const none = await post('/v1/wallets/challenge', null, { address: privateKeyToAccount(generatePrivateKey()).address, network: 'evm' });
      expect([none.status, none.body.error.code]).toEqual([401, 'signup_required']);
    });

    const evm = '0x52908400098527886e0f7030069857d2e4169ee7';
    const solana = 'awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh';
    // 32 bytes that are no point of the curve: an address no key signs for (like a program-derived one).
    const offCurve = (() => {
      for (let i = 0; ; i++) {
        const bytes = createHash('sha256').update(`off-curve ${i}`).digest();
        if (!ed25519.utils.isValidPublicKey(bytes, false)) return bs58.encode(bytes);
      }
    })();
    it.each([
      [{ network: 'evm' }, 'bad_request', /^address is required$/],
      [{ address: evm }, 'bad_request', /^network is required$/],
      [{ address: evm, network: 'bitcoin' }, 'invalid_network', /network must be evm or solana/],
      [{ address: evm, network: 'EVM' }, 'invalid_network', /network must be evm or solana/],
      [{ address: evm, network: 7 }, 'invalid_network', /network must be evm or solana/],
      [{ address: 'nope', network: 'bitcoin' }, 'invalid_network', /network must be evm or solana/],
      [{ address: 'nope', network: 'evm' }, 'invalid_wallet', /not an EVM address/],
      [{ address: `${evm}00`, network: 'evm' }, 'invalid_wallet', /not an EVM address/],
      [{ address: 42, network: 'evm' }, 'invalid_wallet', /address must be a string/],
      [{ address: '0x0000000000000000000000000000000000000000', network: 'evm' }, 'invalid_wallet', /zero address/],
      [{ address: solana, network: 'evm' }, 'invalid_wallet', /not an EVM address/],
      [{ address: evm, network: 'solana' }, 'invalid_wallet', /not a Solana address/],
      [{ address: '11111111111111111111111111111111', network: 'solana' }, 'invalid_wallet', /cannot be claimed/],
      [{ address: offCurve, network: 'solana' }, 'invalid_wallet', /cannot be claimed/],
      [{ address: evm, network: 'evm', chain_id: 0 }, 'bad_request', /chain_id must be a positive integer/],
      [{ address: evm, network: 'evm', chain_id: -5 }, 'bad_request', /chain_id must be a positive integer/],
      [{ address: evm, network: 'evm', chain_id: 1.5 }, 'bad_request', /chain_id must be a positive integer/],
      [{ address: evm, network: 'evm', chain_id: '1' }, 'bad_request', /chain_id must be a positive integer/],
      [{ address: evm, network: 'evm', chain_id: 2 ** 60 }, 'bad_request', /chain_id must be a positive integer/],
      [{ address: solana, network: 'solana', chain_id: 1 }, 'bad_request', /chain_id is for evm challenges only/],
      [{ address: evm, network: 'evm', colour: 'blue' }, 'bad_request', /^colour: not a field of this request/],
      [[evm], 'bad_request', /the body must be a JSON object/],
    ])('refuses %j with 400 %s', async (body, code, message) => {
      const res = await challenge(a.key, body);
      expect([res.status, res.body.error.code]).toEqual([400, code]);
      expect(res.body.error.message).toMatch(message);
    });

    it('refuses a missing body and a body that is not JSON', async () => {
      const none = await post('/v1/wallets/challenge', a.key, undefined);
      expect([none.status, none.body.error.code, none.body.error.message]).toEqual([400, 'bad_request', 'a JSON body is required']);
      const text = await fetch(`${server.url}/v1/wallets/challenge`, { method: 'POST', headers: { 'X-API-Key': a.key, 'content-type': 'application/json' }, body: '{"address": ' });
      expect([text.status, ((await text.json()) as any).error.code]).toEqual([400, 'bad_request']);
    });
  });

  describe('POST /v1/wallets/claim: EVM', () => {
    it('claims a wallet with an EOA signature (SIWE): the nonce is spent, the wallet is wallet_claimed', async () => {
      const s = await signedEvm(free.key);
      clock += 1_000; // the free plan's one request a second
      const res = await claim(free.key, { message: s.message, signature: s.signature });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const address = s.wallet.address.toLowerCase();
      expect(res.body).toEqual({ network: 'evm', address, claimed: true, claimed_at: new Date(clock).toISOString(), verification_level: 'wallet_claimed' });
      expect(await claimRows(address)).toEqual([{ account_id: free.id, method: 'siwe-eoa', chain_id: '1' }]);
      expect(await usedAt(s.nonce)).not.toBeNull();
      expect(server.identity.deps.state.wallets.verificationLevel(s.wallet.address)).toBe('wallet_claimed');
    });

    it('refuses another signer (invalid_signature), and the nonce stays usable by the wallet', async () => {
      const other = privateKeyToAccount(generatePrivateKey());
      const s = await signedEvm(a.key, { signer: other });
      const res = await claim(a.key, { message: s.message, signature: s.signature });
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_signature']);
      expect(res.body.error.message).toContain(`it was made by ${other.address}, not ${s.wallet.address}`);
      expect(await claimRows(s.wallet.address.toLowerCase())).toEqual([]);
      expect(await usedAt(s.nonce)).toBeNull();
      const right = await claim(a.key, { message: s.message, signature: await s.wallet.signMessage({ message: s.message }) });
      expect(right.status).toBe(200);
    });

    it('refuses a replayed nonce: a challenge proves one claim', async () => {
      const s = await signedEvm(a.key);
      expect((await claim(a.key, { message: s.message, signature: s.signature })).status).toBe(200);
      const again = await claim(a.key, { message: s.message, signature: s.signature });
      expect([again.status, again.body.error.code]).toEqual([400, 'invalid_challenge']);
      expect(again.body.error.message).toMatch(/was already used/);
    });

    it('refuses an expired nonce (10 minutes), and takes one just before', async () => {
      const late = await signedEvm(a.key);
      const inTime = await signedEvm(a.key);
      clock += 10 * minute - 1;
      expect((await claim(a.key, { message: inTime.message, signature: inTime.signature })).status).toBe(200);
      clock += 1;
      const res = await claim(a.key, { message: late.message, signature: late.signature });
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_challenge']);
      expect(res.body.error.message).toMatch(/expired at/);
      expect(await usedAt(late.nonce)).toBeNull();
    });

    it("refuses another account's nonce exactly as a nonce nobody was issued", async () => {
      const s = await signedEvm(a.key);
      const foreign = await claim(b.key, { message: s.message, signature: s.signature });
      expect([foreign.status, foreign.body.error.code]).toEqual([400, 'invalid_challenge']);
      // A message of this service with a nonce never issued, signed by its wallet.
      const invented = s.message.replace(`Nonce: ${s.nonce}`, 'Nonce: abcdefgh12345678abcdefgh12345678');
      const unknown = await claim(b.key, { message: invented, signature: await s.wallet.signMessage({ message: invented }) });
      expect([unknown.status, unknown.body.error.code]).toEqual([400, 'invalid_challenge']);
      expect(foreign.body.error.message.replace(s.nonce, 'N')).toBe(unknown.body.error.message.replace('abcdefgh12345678abcdefgh12345678', 'N'));
      // The owner's claim still works: the foreign attempt spent nothing.
      expect((await claim(a.key, { message: s.message, signature: s.signature })).status).toBe(200);
    });

    it('refuses a message for another domain, even with a live nonce of ours', async () => {
      const s = await signedEvm(a.key);
      const host = new URL(server.url).host;
      const moved = s.message.replace(`http://${host} wants you`, 'https://evil.example wants you');
      const res = await claim(a.key, { message: moved, signature: await s.wallet.signMessage({ message: moved }) });
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_challenge']);
      expect(res.body.error.message).toMatch(/^message is for evil\.example/);
      // Another site's own message (its URI, its nonce) is no claim here either.
      const theirs = createSiweMessage({ domain: 'evil.example', address: s.wallet.address, uri: 'https://evil.example/login', version: '1', chainId: 1, nonce: s.nonce });
      const elsewhere = await claim(a.key, { message: theirs, signature: await s.wallet.signMessage({ message: theirs }) });
      expect([elsewhere.status, elsewhere.body.error.code]).toEqual([400, 'invalid_challenge']);
      expect(await usedAt(s.nonce)).toBeNull();
    });

    it('refuses a message changed after issue, signed as changed or not', async () => {
      const s = await signedEvm(a.key);
      const changed = s.message.replace(`account ${a.id}`, `account ${b.id}`);
      expect(changed).not.toBe(s.message);
      for (const signature of [s.signature, await s.wallet.signMessage({ message: changed })]) {
        const res = await claim(a.key, { message: changed, signature });
        expect([res.status, res.body.error.code]).toEqual([400, 'invalid_challenge']);
        expect(res.body.error.message).toMatch(/not the text issued with nonce/);
      }
      const trailing = await claim(a.key, { message: `${s.message}\n`, signature: s.signature });
      expect([trailing.status, trailing.body.error.code]).toEqual([400, 'invalid_challenge']);
    });

    it('claims a contract wallet deployed on the devnet (ERC-1271), and refuses it signed by another key', async () => {
      const owner = privateKeyToAccount(generatePrivateKey());
      const wallet = await contractWallet(owner.address, 'deployed', { deployed: true });
      const c = await issued(a.key, { address: wallet.address, network: 'evm', chain_id: devnet.chainId });
      const stranger = await claim(a.key, { message: c.message, signature: await privateKeyToAccount(generatePrivateKey()).sign({ hash: hashMessage(c.message) }) });
      expect([stranger.status, stranger.body.error.code]).toEqual([400, 'invalid_signature']);
      expect(stranger.body.error.message).toMatch(/does not accept it \(ERC-1271\)/);
      const res = await claim(a.key, { message: c.message, signature: await owner.sign({ hash: hashMessage(c.message) }) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ network: 'evm', address: wallet.address.toLowerCase(), verification_level: 'wallet_claimed' });
      expect(await claimRows(wallet.address.toLowerCase())).toEqual([{ account_id: a.id, method: 'siwe-erc1271', chain_id: String(devnet.chainId) }]);
    });

    it('claims a contract wallet not deployed yet (ERC-6492), without deploying it', async () => {
      const owner = privateKeyToAccount(generatePrivateKey());
      const wallet = await contractWallet(owner.address, 'counterfactual', { deployed: false });
      const c = await issued(a.key, { address: wallet.address, network: 'evm', chain_id: devnet.chainId });
      const wrap = async (signer: PrivateKeyAccount) =>
        serializeErc6492Signature({ address: factory, data: wallet.deployCall, signature: await signer.sign({ hash: hashMessage(c.message) }) });
      const stranger = await claim(a.key, { message: c.message, signature: await wrap(privateKeyToAccount(generatePrivateKey())) });
      expect([stranger.status, stranger.body.error.code]).toEqual([400, 'invalid_signature']);
      // A plain signature of an undeployed address is no contract signature.
      const plain = await claim(a.key, { message: c.message, signature: await owner.sign({ hash: hashMessage(c.message) }) });
      expect([plain.status, plain.body.error.code]).toEqual([400, 'invalid_signature']);
      expect(plain.body.error.message).toMatch(/no contract is deployed at/);
      const res = await claim(a.key, { message: c.message, signature: await wrap(owner) });
      expect(res.status).toBe(200);
      expect(await claimRows(wallet.address.toLowerCase())).toEqual([{ account_id: a.id, method: 'siwe-erc6492', chain_id: String(devnet.chainId) }]);
      expect(await chain.publicClient.getCode({ address: wallet.address })).toBeUndefined();
    });

    it('verifies only EOAs on a chain without an RPC URL, and says so for a contract signer', async () => {
      const owner = privateKeyToAccount(generatePrivateKey());
      const wallet = await contractWallet(owner.address, 'elsewhere', { deployed: false });
      const c = await issued(a.key, { address: wallet.address, network: 'evm', chain_id: 8453 });
      const wrapped = serializeErc6492Signature({ address: factory, data: wallet.deployCall, signature: await owner.sign({ hash: hashMessage(c.message) }) });
      const res = await claim(a.key, { message: c.message, signature: wrapped });
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_signature']);
      expect(res.body.error.message).toMatch(/contract wallet's signature \(ERC-1271\/ERC-6492\), and chain 8453 has no RPC URL configured on this service/);
      expect(res.body.error.message).toContain(`(chains that verify contract wallets: ${devnet.chainId} (devnet), 31337 (offline), 31338 (flaky))`);
      const plain = await claim(a.key, { message: c.message, signature: await owner.sign({ hash: hashMessage(c.message) }) });
      expect(plain.body.error.message).toMatch(/Chain 8453 has no RPC URL configured on this service, so a contract wallet cannot be verified on it, only an EOA/);
      // An EOA claims on that chain all the same.
      const eoa = await signedEvm(a.key, { chainId: 8453 });
      expect((await claim(a.key, { message: eoa.message, signature: eoa.signature })).status).toBe(200);
    });

    it("answers 503 api_error when the chain of a contract signer does not answer, and the nonce stays usable", async () => {
      const owner = privateKeyToAccount(generatePrivateKey());
      const wallet = await contractWallet(owner.address, 'offline', { deployed: false });
      const c = await issued(a.key, { address: wallet.address, network: 'evm', chain_id: 31337 });
      const wrapped = serializeErc6492Signature({ address: factory, data: wallet.deployCall, signature: await owner.sign({ hash: hashMessage(c.message) }) });
      const res = await claim(a.key, { message: c.message, signature: wrapped });
      expect([res.status, res.body.error.code]).toEqual([503, 'api_error']);
      expect(res.body.error.message).toMatch(/chain 31337 did not answer .*; retry later$/);
      expect(await usedAt(c.nonce)).toBeNull();
    });

    it('answers 503, not a bad signature, when the contract wallet\'s chain rate-limits the call (ERC-1271 and ERC-6492)', async () => {
      const owner = privateKeyToAccount(generatePrivateKey());
      for (const deployed of [true, false]) {
        const wallet = await contractWallet(owner.address, `flaky-${deployed}`, { deployed });
        const c = await issued(a.key, { address: wallet.address, network: 'evm', chain_id: 31338 });
        const signed = await owner.sign({ hash: hashMessage(c.message) });
        const signature = deployed ? signed : serializeErc6492Signature({ address: factory, data: wallet.deployCall, signature: signed });
        const res = await claim(a.key, { message: c.message, signature });
        expect([res.status, res.body.error.code], `deployed: ${deployed}`).toEqual([503, 'api_error']);
        expect(await usedAt(c.nonce)).toBeNull();
      }
    });

    it('lets exactly one of concurrent claims of one nonce win', async () => {
      const s = await signedEvm(a.key);
      const answers = await Promise.all(Array.from({ length: 12 }, () => claim(a.key, { message: s.message, signature: s.signature })));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      const refused = answers.filter((r) => r.status !== 200);
      expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(Array(11).fill([400, 'invalid_challenge']));
      for (const r of refused) expect(r.body.error.message).toMatch(/was already used/);
      expect(await claimRows(s.wallet.address.toLowerCase())).toHaveLength(1);
    });

    it.each([
      [{ signature: '0x00' }, 'bad_request', /^message is required$/],
      [{ message: 'hello' }, 'bad_request', /^signature is required$/],
      [{ message: 7, signature: '0x00' }, 'bad_request', /message must be a string/],
      [{ message: 'hello', signature: '0x00', extra: 1 }, 'bad_request', /^extra: not a field of this request/],
      [{ message: 'hello', signature: '0x00' }, 'invalid_challenge', /not a challenge of this service/],
    ])('refuses %j with 400 %s', async (body, code, message) => {
      const res = await claim(a.key, body);
      expect([res.status, res.body.error.code]).toEqual([400, code]);
      expect(res.body.error.message).toMatch(message);
    });

    it('refuses a signature that is not 0x hex', async () => {
      const s = await signedEvm(a.key);
      for (const signature of [s.signature.slice(2), `${s.signature}0`, 'zz']) {
        const res = await claim(a.key, { message: s.message, signature });
        expect([res.status, res.body.error.code]).toEqual([400, 'bad_request']);
        expect(res.body.error.message).toMatch(/^signature must be 0x/);
      }
    });
  });

  describe('POST /v1/wallets/claim: Solana', () => {
    async function solanaChallenge(key: string) {
      const secret = ed25519.utils.randomSecretKey();
      const address = bs58.encode(ed25519.getPublicKey(secret));
      const c = await issued(key, { address, network: 'solana' });
      const sign = (sk: Uint8Array, message = c.message) => bs58.encode(ed25519.sign(new TextEncoder().encode(message), sk));
      return { secret, address, ...c, sign };
    }

    it('claims a Solana wallet with a real ed25519 signature (SIWS)', async () => {
      const s = await solanaChallenge(a.key);
      const res = await claim(a.key, { message: s.message, signature: s.sign(s.secret) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ network: 'solana', address: s.address, claimed: true, claimed_at: new Date(clock).toISOString(), verification_level: 'wallet_claimed' });
      expect(await claimRows(s.address)).toEqual([{ account_id: a.id, method: 'siws', chain_id: null }]);
    });

    it("refuses another key's signature, a signature of other text, and one that is not base58 of 64 bytes", async () => {
      const s = await solanaChallenge(a.key);
      for (const signature of [s.sign(ed25519.utils.randomSecretKey()), s.sign(s.secret, `${s.message} `)]) {
        const res = await claim(a.key, { message: s.message, signature });
        expect([res.status, res.body.error.code]).toEqual([400, 'invalid_signature']);
        expect(res.body.error.message).toContain(`not ${s.address}'s ed25519 signature`);
      }
      const good = ed25519.sign(new TextEncoder().encode(s.message), s.secret);
      for (const signature of [Buffer.from(good).toString('base64'), bs58.encode(good.subarray(1)), `0x${Buffer.from(good).toString('hex')}`]) {
        const res = await claim(a.key, { message: s.message, signature });
        expect([res.status, res.body.error.code]).toEqual([400, 'bad_request']);
        expect(res.body.error.message).toBe('signature must be the base58 of the 64 signature bytes');
      }
      expect(await usedAt(s.nonce)).toBeNull();
      expect((await claim(a.key, { message: s.message, signature: bs58.encode(good) })).status).toBe(200);
    });

    it('refuses a SIWS message for another domain', async () => {
      const s = await solanaChallenge(a.key);
      const moved = s.message.replace(`${new URL(server.url).host} wants you`, 'evil.example wants you');
      const res = await claim(a.key, { message: moved, signature: s.sign(s.secret, moved) });
      expect([res.status, res.body.error.code]).toEqual([400, 'invalid_challenge']);
      expect(res.body.error.message).toMatch(/^message is for evil\.example/);
    });
  });

  describe('who a claimed wallet belongs to', () => {
    it('is the newest claim: a later claim by another account takes the wallet; a repeated one keeps its time', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      const sibling = await signedEvm(a.key);
      expect((await claim(a.key, { message: sibling.message, signature: sibling.signature })).status).toBe(200);
      const claimBy = async (account: { key: string }) => {
        const c = await issued(account.key, { address: wallet.address, network: 'evm' });
        return claim(account.key, { message: c.message, signature: await wallet.signMessage({ message: c.message }) });
      };
      const first = await claimBy(a);
      const linked = () => server.identity.deps.state.wallets.resolveAddress(wallet.address)!.linkedWallets;
      expect(linked()).toContain(sibling.wallet.address.toLowerCase());
      clock += 1_000;
      const again = await claimBy(a);
      expect(again.body.claimed_at).toBe(first.body.claimed_at);
      clock += 1_000;
      const taken = await claimBy(b);
      expect(taken.status).toBe(200);
      expect(taken.body.claimed_at).toBe(new Date(clock).toISOString());
      expect(linked()).toEqual([wallet.address.toLowerCase()]);
      expect((await claimRows(wallet.address.toLowerCase())).map((r) => r.account_id)).toEqual([a.id, b.id]);
    });

    it('is kyc_verified once the account holder verified their identity', async () => {
      const holder = await createAccount(server.store, { plan: 'scale' }, server.keys);
      const { session } = await createSession(server.store, { accountId: holder.id, purpose: 'account', context: null, productName: null, kycProvider: 'sandbox', now: new Date(clock) });
      const submitted = await submitSandbox(`${server.url}/verify/${session.id}`, clearPerson);
      expect(submitted.status).toBe(303);
      const s = await signedEvm(holder.api_key);
      const res = await claim(holder.api_key, { message: s.message, signature: s.signature });
      expect(res.status).toBe(200);
      expect(res.body.verification_level).toBe('kyc_verified');
    });
  });
});

/** A JSON-RPC endpoint in front of `target` that answers every eth_call with HTTP 429, as a rate-limited provider does. */
async function startRateLimitingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const requests = [JSON.parse(body)].flat() as { method: string }[];
    if (requests.some((r) => r.method === 'eth_call')) {
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1' });
      return res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 429, message: 'rate limited' } }));
    }
    const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    res.writeHead(answer.status, { 'Content-Type': 'application/json' });
    res.end(await answer.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
