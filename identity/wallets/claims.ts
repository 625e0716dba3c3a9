// Wallet claims (spec 2.7 `wallet_claimed`, 3.4): an account proves it controls a wallet by signing
// a one-time challenge, and the wallet is then its own (identity/wallets/directory.ts).
//
//   POST /v1/wallets/challenge  → a Sign-In with Ethereum (EIP-4361) or Sign-In With Solana message
//                                 naming the account, with a random nonce; 10 minutes to sign it.
//   POST /v1/wallets/claim      → the message as issued and the wallet's signature of it.
//
// A claim is accepted only for the exact text this account was issued under that nonce, for this
// service's domain and URI, before it expired and once: the nonce is spent in the same writer unit
// that records the claim, after reading it there (so of two claims racing with one nonce exactly
// one commits). The signature is checked before that unit, outside the writer, because a contract
// wallet's check is a call to its chain. A refusal is a result, not an exception: only an
// unreachable chain throws (ChainUnavailableError), and a claim can be retried then.
import type { Store } from '../../pipeline/store/store.ts';
import type { WriteTx } from '../../pipeline/store/group-commit.ts';
import type { Row } from '../../pipeline/store/rows.ts';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import { isZeroEvmAddress, parseAddress } from '../../pipeline/address.ts';
import { newSecret } from '../../pipeline/secrets.ts';
import type { IdentityState } from '../state.ts';
import { at, dateOf } from '../store-values.ts';
import type { WalletNetwork } from './directory.ts';
import { createSiweChallenge, parseEvmSignature, parseSiweFields, verifyEvmSignature, type ClaimMethod, type EvmChainClients, type SignedFields } from './siwe.ts';
import { createSiwsMessage, decodeSolanaSignature, isSigningKey, parseSiwsMessage, verifySolanaSignature } from './siws.ts';

/** How long a challenge can be signed and claimed with. */
export const challengeTtlMs = 10 * 60 * 1000;
/** An EVM challenge names this chain unless the caller asks for another. */
export const defaultEvmChainId = 1;
/** What a SIWS message names as its chain: the wallet's key is the same on every Solana cluster. */
export const solanaChainId = 'mainnet';

export interface ClaimDeps {
  store: Store;
  state: IdentityState;
  /** The service's public address: the messages' domain (its host) and URI. */
  serviceBaseUrl: string;
  evmChains: EvmChainClients;
}

export type Refusal<C extends string> = { kind: 'refused'; code: C; message: string };

export type ChallengeResult = { kind: 'issued'; nonce: string; message: string; expiresAt: Date } | Refusal<'invalid_wallet' | 'bad_request'>;

export type ClaimResult =
  | { kind: 'claimed'; network: WalletNetwork; address: string; method: ClaimMethod; claimedAt: Date }
  | Refusal<'invalid_challenge' | 'invalid_signature' | 'bad_request'>;

interface Challenge {
  nonce: string;
  accountId: string;
  network: WalletNetwork;
  wallet: string;
  chainId: number | null;
  message: string;
  expiresAt: Date;
  usedAt: Date | null;
}

/** A new challenge for `accountId` to sign with `address`; stored before it is answered. */
export async function issueChallenge(
  deps: ClaimDeps,
  accountId: string,
  input: { network: WalletNetwork; address: string; chainId: number | null },
  now: Date,
): Promise<ChallengeResult> {
  const parsed = parseAddress(input.address);
  if (!parsed || parsed.family !== input.network) {
    return refused('invalid_wallet', input.network === 'evm' ? 'address is not an EVM address (0x and 40 hex digits)' : 'address is not a Solana address (the base58 of a 32-byte public key)');
  }
  if (input.network === 'evm' && isZeroEvmAddress(parsed.address)) return refused('invalid_wallet', 'address is the zero address, which no key controls');
  if (input.network === 'solana' && !isSigningKey(parsed.address)) {
    return refused('invalid_wallet', 'address is not an ed25519 public key that can sign (a program-derived or otherwise keyless address cannot be claimed)');
  }
  if (input.network === 'solana' && input.chainId !== null) return refused('bad_request', 'chain_id is for evm challenges only: a Solana message names no chain id');
  const chainId = input.network === 'evm' ? (input.chainId ?? defaultEvmChainId) : null;
  const nonce = newSecret('');
  const expiresAt = new Date(now.getTime() + challengeTtlMs);
  const domain = new URL(deps.serviceBaseUrl).host;
  const statement = `Signing this message links this wallet to account ${accountId} at ${domain}, proving you control it. It sends no transaction and moves no funds.`;
  const message =
    input.network === 'evm'
      ? createSiweChallenge({ serviceBaseUrl: deps.serviceBaseUrl, address: parsed.address, chainId: chainId!, statement, nonce, issuedAt: now, expiresAt })
      : createSiwsMessage({
          domain,
          address: parsed.address,
          statement,
          uri: deps.serviceBaseUrl,
          version: '1',
          chainId: solanaChainId,
          nonce,
          issuedAt: now.toISOString(),
          expirationTime: expiresAt.toISOString(),
        });
  await deps.store.write((tx) =>
    tx.run(sqlFile('identity/wallet_challenge_insert'), [nonce, accountId, input.network, parsed.address, chainId, message, at(now), at(expiresAt)]),
  );
  return { kind: 'issued', nonce, message, expiresAt };
}

/** Checks a signed challenge and, when it holds, records the claim and spends the nonce. */
export async function claimWallet(deps: ClaimDeps, accountId: string, input: { message: string; signature: string }, now: Date): Promise<ClaimResult> {
  const signed = readMessage(input.message);
  if (!signed) return refused('invalid_challenge', 'message is not a challenge of this service: sign the message POST /v1/wallets/challenge answered, exactly as it is');
  const ours = new URL(deps.serviceBaseUrl);
  if (signed.fields.domain !== ours.host || signed.fields.uri !== deps.serviceBaseUrl) {
    return refused('invalid_challenge', `message is for ${signed.fields.domain} (${signed.fields.uri}), not this service (${ours.host}): sign a challenge of POST /v1/wallets/challenge`);
  }
  const signature = signed.network === 'evm' ? parseEvmSignature(input.signature) : decodeSolanaSignature(input.signature);
  if (!signature) {
    return refused('bad_request', signed.network === 'evm' ? 'signature must be 0x followed by the hex of the signature bytes (65 for an EOA)' : 'signature must be the base58 of the 64 signature bytes');
  }

  const [row] = await deps.store.read(sqlFile('identity/wallet_challenge_by_nonce'), [signed.fields.nonce]);
  const challenge = row ? challengeOf(row) : null;
  const problem = challengeProblem(challenge, accountId, input.message, signed.fields.nonce, now);
  if (problem) return problem;
  const c = challenge!;

  let method: ClaimMethod;
  if (typeof signature === 'string') {
    const verified = await verifyEvmSignature({ message: input.message, signature, address: c.wallet, chainId: c.chainId!, clients: deps.evmChains });
    if (!verified.valid) return refused('invalid_signature', verified.reason);
    method = verified.method;
  } else {
    if (!verifySolanaSignature(input.message, signature, c.wallet)) return refused('invalid_signature', `the signature does not verify: it is not ${c.wallet}'s ed25519 signature of this message`);
    method = 'siws';
  }

  return deps.store.write(async (tx) => {
    // Read again inside the writer: another claim with this nonce may have committed meanwhile.
    const [locked] = await tx.all(sqlFile('identity/wallet_challenge_by_nonce'), [c.nonce]);
    const stillOpen = challengeProblem(locked ? challengeOf(locked) : null, accountId, input.message, c.nonce, now);
    if (stillOpen) return stillOpen;
    await tx.run(sqlFile('identity/wallet_challenge_use'), [c.nonce, at(now)]);
    return { kind: 'claimed', network: c.network, address: c.wallet, method, claimedAt: await recordClaim(tx, deps.state, { accountId, network: c.network, wallet: c.wallet, method, chainId: c.chainId }, now) };
  });
}

/**
 * The claim's row and the directory's entry, unless the account's claim of the wallet already
 * stands (a repeated claim changes nothing: the wallet keeps the time it was first claimed by
 * this account, which orders `resolved_operator`). Answers the standing claim's time.
 */
async function recordClaim(tx: WriteTx, state: IdentityState, claim: { accountId: string; network: WalletNetwork; wallet: string; method: ClaimMethod; chainId: number | null }, now: Date): Promise<Date> {
  const [standing] = await tx.all(sqlFile('identity/wallet_claim_of'), [claim.network, claim.wallet]);
  if (standing && String(standing.account_id) === claim.accountId) return dateOf(standing.claimed_at)!;
  await tx.run(sqlFile('identity/wallet_claim_insert'), [claim.accountId, claim.network, claim.wallet, claim.method, claim.chainId, at(now)]);
  state.wallets.addClaim(tx, { accountId: claim.accountId, network: claim.network, wallet: claim.wallet, claimedAt: now });
  return now;
}

// Why a challenge cannot be claimed with now, or null. A nonce nobody was issued and one of another
// account get the same answer: a claim must not tell whether another account's nonce exists.
function challengeProblem(c: Challenge | null, accountId: string, message: string, nonce: string, now: Date): Refusal<'invalid_challenge'> | null {
  if (!c || c.accountId !== accountId) return refused('invalid_challenge', `this account was issued no challenge with nonce ${nonce}: ask POST /v1/wallets/challenge for one`);
  if (c.message !== message) return refused('invalid_challenge', `message is not the text issued with nonce ${nonce}: sign and send it exactly as issued, with no change`);
  if (c.usedAt) return refused('invalid_challenge', `the challenge with nonce ${nonce} was already used (each proves one claim): ask POST /v1/wallets/challenge for a new one`);
  if (now >= c.expiresAt) return refused('invalid_challenge', `the challenge with nonce ${nonce} expired at ${c.expiresAt.toISOString()}: ask POST /v1/wallets/challenge for a new one`);
  return null;
}

function readMessage(text: string): { network: WalletNetwork; fields: SignedFields } | null {
  const siwe = parseSiweFields(text);
  if (siwe) return { network: 'evm', fields: siwe };
  const siws = parseSiwsMessage(text);
  return siws ? { network: 'solana', fields: siws } : null;
}

function challengeOf(row: Row): Challenge {
  return {
    nonce: String(row.nonce),
    accountId: String(row.account_id),
    network: String(row.network) as WalletNetwork,
    wallet: String(row.wallet),
    chainId: row.chain_id === null || row.chain_id === undefined ? null : Number(row.chain_id),
    message: String(row.message),
    expiresAt: dateOf(row.expires_at)!,
    usedAt: dateOf(row.used_at),
  };
}

function refused<C extends string>(code: C, message: string): Refusal<C> {
  return { kind: 'refused', code, message };
}
