// Who a wallet belongs to (spec 1.5, 2.4, 2.7, 3.4): the one place that answers it, for assess, the
// gate and the reputation record. Wallets are tied to a person two ways:
//   - a claim: an account signed a one-time challenge with the wallet (identity/wallets/claims.ts);
//     the newest claim of a wallet is its owner;
//   - a capture: a merchant saw the wallet pay under an operator token (identity/wallets/captures.ts);
//     a capture is active while its token is not revoked (a revoked credential, or a refresh family
//     revoked for reuse, may have been a thief's: what it captured no longer counts). It belongs
//     to the operator its token speaks for now (operatorOf: a credential, to its account holder's
//     newest verification).
// A wallet's group is the verified operator behind it (its claiming account's, or the operator of
// its earliest active capture), or, for a claim by an account no verification backs, that
// account. Every wallet of the group is a linked wallet; the group's canonical wallet
// (`resolved_operator`) is its earliest claimed wallet, else its lexically smallest captured one.
//
// Everything is kept in the owner's memory, loaded at start and changed inside the writer's units
// with an undo on rollback, so a lookup (every reputation record, every assess) asks no query. A
// group's resolution is kept until anything here changes or a token is revoked (every assess
// resolves the claimed wallet and the signer's; building one walks and sorts the group).
import type { Store } from '../../pipeline/store/store.ts';
import type { WriteTx } from '../../pipeline/store/group-commit.ts';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import { parseAddress } from '../../pipeline/address.ts';
import { dateOf, textOf } from '../store-values.ts';
import type { TokenIndex, TokenRecord } from '../tokens.ts';
import type { OperatorIndex } from '../operators.ts';
import { addTo } from '../multimap.ts';

export type WalletNetwork = 'evm' | 'solana';
/** Spec 2.7 / 3.4: how strongly an address is tied to a person. */
export type VerificationLevel = 'none' | 'wallet_claimed' | 'kyc_verified';

export interface WalletResolution {
  /** Which group: `op:<operator>` or `acct:<account>`; two wallets of one group belong to one person. */
  group: string;
  /** The group's canonical wallet. */
  resolvedOperator: string;
  /** Every wallet of the group, this one included, sorted; EVM lowercased, Solana verbatim. */
  linkedWallets: readonly string[];
  /** The verified operator behind the group, when there is one. */
  operatorId: string | null;
}

export interface Claim {
  accountId: string;
  network: WalletNetwork;
  wallet: string;
  claimedAt: Date;
}

interface Capture {
  tokenId: string;
  operatorId: string;
  firstAt: Date;
}

/** A (token, network, wallet) tuple's captures: how many, and the key of the newest. */
interface Tuple {
  count: number;
  lastKey: string | null;
}

const key = (network: string, wallet: string) => `${network}:${wallet}`;
const walletOf = (walletKey: string) => walletKey.slice(walletKey.indexOf(':') + 1);

export class WalletDirectory {
  private readonly claims = new Map<string, Claim>();
  private readonly claimsByAccount = new Map<string, Set<string>>();
  // Each account holder's own verifications, oldest first: the newest is the account's operator.
  private readonly accountOperators = new Map<string, string[]>();
  // Every account an operator verified for (it may be one of the older verifications).
  private readonly accountsByOperator = new Map<string, Set<string>>();
  private readonly captures = new Map<string, Capture[]>();
  private readonly capturedByOperator = new Map<string, Set<string>>();
  // Wallets captured under an account's credentials: they follow the account's operator.
  private readonly capturedByAccount = new Map<string, Set<string>>();
  private readonly tuples = new Map<string, Tuple>();
  private readonly resolutions = new Map<string, WalletResolution>();
  private resolvedAtRevocations = -1;
  private resolvedAtOperators = -1;

  constructor(
    private readonly tokens: TokenIndex,
    private readonly operators: OperatorIndex,
  ) {}

  static async load(store: Store, tokens: TokenIndex, operators: OperatorIndex): Promise<WalletDirectory> {
    const d = new WalletDirectory(tokens, operators);
    for (const r of await store.read(sqlFile('identity/account_operators'))) d.linkAccount(String(r.account_id), String(r.operator_id));
    for (const r of await store.read(sqlFile('identity/wallet_claims_current'))) {
      d.putClaim({ accountId: String(r.account_id), network: String(r.network) as WalletNetwork, wallet: String(r.wallet), claimedAt: dateOf(r.claimed_at)! });
    }
    for (const r of await store.read(sqlFile('identity/wallet_capture_tuples'))) {
      const walletKey = key(String(r.network), String(r.wallet));
      d.putCapture(walletKey, { tokenId: String(r.token_id), operatorId: String(r.operator_id), firstAt: dateOf(r.first_at)! });
      d.tuples.set(`${String(r.token_id)}|${walletKey}`, { count: Number(r.captures), lastKey: textOf(r.last_key) });
    }
    return d;
  }

  /** The resolution of an address of either form (EVM in any case); null when nothing ties it to anyone. */
  resolveAddress(address: string): WalletResolution | null {
    const parsed = parseAddress(address);
    return parsed ? this.resolve(parsed.family, parsed.address) : null;
  }

  /** spec 2.7 / 3.4: how strongly the address is tied to a person, now. */
  verificationLevel(address: string): VerificationLevel {
    const parsed = parseAddress(address);
    return parsed ? this.levelOf(key(parsed.family, parsed.address)) : 'none';
  }

  // Spec 3.4 from signatures only, in constant time (every reputation record asks): a wallet its
  // claiming account signed for is wallet_claimed, and kyc_verified once that account's holder is
  // a verified person screened clear. A capture is a merchant's report, not the wallet's signature:
  // it links wallets (resolve) but never raises a level, or anyone with a key and a verified
  // identity could make any wallet theirs and kyc_verified by reporting it.
  private levelOf(walletKey: string): VerificationLevel {
    const claim = this.claims.get(walletKey);
    if (!claim) return 'none';
    const operatorId = this.operatorOfAccount(claim.accountId);
    return operatorId && this.operators.get(operatorId)?.sanctionsResult === 'clear' ? 'kyc_verified' : 'wallet_claimed';
  }

  resolve(network: WalletNetwork, wallet: string): WalletResolution | null {
    const walletKey = key(network, wallet);
    const group = this.groupOf(walletKey);
    return group ? this.resolveGroup(group) : null;
  }

  /** The wallets of a verified operator (an operator token's), when any are tied to it. */
  resolveOperator(operatorId: string): WalletResolution | null {
    const group = `op:${operatorId}`;
    return [...this.candidates(group)].some((k) => this.groupOf(k) === group) ? this.resolveGroup(group) : null;
  }

  private resolveGroup(group: string): WalletResolution {
    if (this.resolvedAtRevocations !== this.tokens.revocations || this.resolvedAtOperators !== this.operators.revision) this.forgetResolutions();
    const known = this.resolutions.get(group);
    if (known) return known;
    const members = [...this.candidates(group)].filter((k) => this.groupOf(k) === group);
    const claimedWallets = members.map((k) => this.claims.get(k)).filter((c): c is Claim => c !== undefined);
    claimedWallets.sort((a, b) => a.claimedAt.getTime() - b.claimedAt.getTime() || (a.wallet < b.wallet ? -1 : 1));
    const wallets: readonly string[] = Object.freeze(members.map(walletOf).sort());
    const operatorId = group.startsWith('op:') ? group.slice(3) : null;
    const resolution = Object.freeze({ group, resolvedOperator: claimedWallets[0]?.wallet ?? wallets[0]!, linkedWallets: wallets, operatorId });
    this.resolutions.set(group, resolution);
    return resolution;
  }

  private forgetResolutions(): void {
    this.resolutions.clear();
    this.resolvedAtRevocations = this.tokens.revocations;
    this.resolvedAtOperators = this.operators.revision;
  }

  /** A verified claim, recorded in the writer's transaction by the caller. */
  addClaim(tx: WriteTx, claim: Claim): void {
    const walletKey = key(claim.network, claim.wallet);
    const before = this.claims.get(walletKey);
    this.putClaim(claim);
    tx.onRollback(() => {
      this.claimsByAccount.get(claim.accountId)?.delete(walletKey);
      if (before) this.putClaim(before);
      else this.claims.delete(walletKey);
      this.forgetResolutions();
    });
  }

  /** An account holder's own verification made `operatorId` the account's operator. */
  linkAccountOperator(tx: WriteTx, accountId: string, operatorId: string): void {
    this.linkAccount(accountId, operatorId);
    tx.onRollback(() => {
      const history = this.accountOperators.get(accountId)!;
      history.pop();
      if (history.length === 0) this.accountOperators.delete(accountId);
      if (!history.includes(operatorId)) this.accountsByOperator.get(operatorId)?.delete(accountId);
      this.forgetResolutions();
    });
  }

  /**
   * Records a capture of (token, network, wallet) unless `idempotencyKey` is the key of that tuple's
   * newest capture; the caller writes the row when `changed`. Runs inside the writer's unit.
   */
  capture(tx: WriteTx, c: { tokenId: string; operatorId: string; network: WalletNetwork; wallet: string; idempotencyKey: string | null; now: Date }): { firstSeen: boolean; changed: boolean } {
    const walletKey = key(c.network, c.wallet);
    const tupleKey = `${c.tokenId}|${walletKey}`;
    const tuple = this.tuples.get(tupleKey);
    if (tuple && c.idempotencyKey !== null && tuple.lastKey === c.idempotencyKey) return { firstSeen: false, changed: false };
    if (tuple) {
      const before = { ...tuple };
      Object.assign(tuple, { count: tuple.count + 1, lastKey: c.idempotencyKey });
      tx.onRollback(() => Object.assign(tuple, before));
      return { firstSeen: false, changed: true };
    }
    this.tuples.set(tupleKey, { count: 1, lastKey: c.idempotencyKey });
    const capture = { tokenId: c.tokenId, operatorId: c.operatorId, firstAt: c.now };
    this.putCapture(walletKey, capture);
    tx.onRollback(() => {
      this.tuples.delete(tupleKey);
      const list = this.captures.get(walletKey)!;
      list.splice(list.indexOf(capture), 1);
      if (!list.some((other) => other.operatorId === c.operatorId)) this.capturedByOperator.get(c.operatorId)?.delete(walletKey);
      const account = this.credentialAccountOf(capture);
      if (account !== null && !list.some((other) => this.credentialAccountOf(other) === account)) this.capturedByAccount.get(account)?.delete(walletKey);
      this.forgetResolutions();
    });
    return { firstSeen: true, changed: true };
  }

  /** The operator of an account holder's own newest verification, when there is one. */
  operatorOfAccount(accountId: string): string | null {
    return this.accountOperators.get(accountId)?.at(-1) ?? null;
  }

  /**
   * The operator a token speaks for now. A credential (POST /v1/credentials) is its account's: it
   * resolves to the holder's newest verification that was screened clear or whose flag a review
   * confirmed (spec 2.1: the account's verification state decides; 4.2: "resolves to the account
   * KYC"). So a holder who verifies again renews all their credentials, and a confirmed match
   * denies them all; a newer verification still waiting for its review, or one no list could
   * screen, leaves them as they were meanwhile (one false match would otherwise turn every working
   * credential into sanctions_flagged). A session's or a refresh exchange's token is the person
   * verified in that session. (The account's claimed wallets follow its newest verification,
   * whatever it is: their level is public, and says kyc_verified only of a clear one.)
   */
  operatorOf(token: TokenRecord): string {
    if (token.source !== 'credential') return token.operatorId;
    const history = this.accountOperators.get(token.accountId) ?? [];
    for (let i = history.length - 1; i >= 0; i--) {
      const operator = this.operators.get(history[i]!);
      if (operator?.sanctionsResult === 'clear' || (operator?.sanctionsResult === 'hit' && operator.reviewConfirmed)) return operator.id;
    }
    return token.operatorId;
  }

  /** The tuple's transaction count (spec 4.8: internal), for tests and support. */
  transactionCount(tokenId: string, network: WalletNetwork, wallet: string): number {
    return this.tuples.get(`${tokenId}|${key(network, wallet)}`)?.count ?? 0;
  }

  // The group a wallet belongs to: `op:<operator>` or `acct:<account>`; null when none.
  private groupOf(walletKey: string): string | null {
    const claim = this.claims.get(walletKey);
    if (claim) {
      const operatorId = this.operatorOfAccount(claim.accountId);
      return operatorId ? `op:${operatorId}` : `acct:${claim.accountId}`;
    }
    let earliest: { capture: Capture; token: TokenRecord } | null = null;
    for (const capture of this.captures.get(walletKey) ?? []) {
      // A token no longer known (pruned, identity/prune-credentials.ts keeps captured ones) reads as revoked.
      const token = this.tokens.get(capture.tokenId);
      if (!token || token.revokedAt !== null) continue;
      if (!earliest || capture.firstAt < earliest.capture.firstAt) earliest = { capture, token };
    }
    return earliest ? `op:${this.operatorOf(earliest.token)}` : null;
  }

  // Wallets that may be in `group` (each is checked with groupOf by the caller).
  private *candidates(group: string): Iterable<string> {
    const id = group.slice(group.indexOf(':') + 1);
    if (group.startsWith('acct:')) return yield* this.claimsByAccount.get(id) ?? [];
    yield* this.capturedByOperator.get(id) ?? [];
    for (const accountId of this.accountsByOperator.get(id) ?? []) {
      yield* this.claimsByAccount.get(accountId) ?? [];
      yield* this.capturedByAccount.get(accountId) ?? [];
    }
  }

  private putClaim(claim: Claim): void {
    this.forgetResolutions();
    const walletKey = key(claim.network, claim.wallet);
    const previous = this.claims.get(walletKey);
    if (previous) this.claimsByAccount.get(previous.accountId)?.delete(walletKey);
    this.claims.set(walletKey, claim);
    addTo(this.claimsByAccount, claim.accountId, walletKey);
  }

  private putCapture(walletKey: string, capture: Capture): void {
    this.forgetResolutions();
    const list = this.captures.get(walletKey) ?? [];
    list.push(capture);
    this.captures.set(walletKey, list);
    addTo(this.capturedByOperator, capture.operatorId, walletKey);
    const account = this.credentialAccountOf(capture);
    if (account !== null) addTo(this.capturedByAccount, account, walletKey);
  }

  /** The account whose credential made the capture; null for a session's or a refresh's token. */
  private credentialAccountOf(capture: Capture): string | null {
    const token = this.tokens.get(capture.tokenId);
    return token?.source === 'credential' ? token.accountId : null;
  }

  private linkAccount(accountId: string, operatorId: string): void {
    this.forgetResolutions();
    const history = this.accountOperators.get(accountId) ?? [];
    history.push(operatorId);
    this.accountOperators.set(accountId, history);
    addTo(this.accountsByOperator, operatorId, accountId);
  }
}
