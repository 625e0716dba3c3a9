// Wallet capture (spec 4.8): after a payment, a merchant reports the wallet that signed it under an
// operator token. A merchant calls it after every payment, so it is one verification in memory
// (identity/tokens.ts) and one appended row in a writer unit, never a scan: whether the tuple is
// new, its count and its newest idempotency key are the directory's memory (directory.ts), changed
// in the same unit as the row (undone if it rolls back).
import type { Store } from '../../pipeline/store/store.ts';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import { at } from '../store-values.ts';
import type { IdentityState } from '../state.ts';
import { isActive } from '../tokens.ts';
import type { WalletNetwork } from './directory.ts';

/** Spec 4.8 / 8: longer keys are cut to this many characters. */
export const maxIdempotencyKeyLength = 200;

export type CaptureResult =
  | { kind: 'associated'; firstSeen: boolean; deduped: boolean }
  /** Unknown, expired or revoked: one answer for all (spec 4.8: 401 to prevent enumeration). */
  | { kind: 'invalid_credential' };

export async function captureWallet(
  deps: { store: Store; state: IdentityState },
  merchantAccountId: string,
  c: { operatorToken: string; network: WalletNetwork; wallet: string; idempotencyKey: string | null },
  now: Date,
): Promise<CaptureResult> {
  const verified = deps.state.tokens.verify(c.operatorToken, now);
  if (verified.kind !== 'active') return { kind: 'invalid_credential' };
  const token = verified.token;
  const idempotencyKey = c.idempotencyKey === null ? null : c.idempotencyKey.slice(0, maxIdempotencyKeyLength);
  const outcome = await deps.store.write(async (tx) => {
    // Again inside the unit: a revocation queued before this capture has committed by now.
    if (!isActive(token, now)) return null;
    const operatorId = deps.state.wallets.operatorOf(token);
    const captured = deps.state.wallets.capture(tx, { tokenId: token.id, operatorId, network: c.network, wallet: c.wallet, idempotencyKey, now });
    if (captured.changed) {
      await tx.run(sqlFile('identity/wallet_capture_insert'), [token.id, operatorId, merchantAccountId, c.network, c.wallet, idempotencyKey, at(now), captureSeq(now)]);
    }
    return captured;
  });
  if (!outcome) return { kind: 'invalid_credential' };
  deps.state.tokens.markUsed(token, now);
  return { kind: 'associated', firstSeen: outcome.firstSeen, deduped: !outcome.changed };
}

// Microseconds of the capture's time, kept increasing within the process: captures of one
// millisecond still order as they were made (sql/identity/wallet_capture_tuples.sql).
let lastSeq = 0n;
function captureSeq(now: Date): bigint {
  const next = BigInt(now.getTime()) * 1000n;
  lastSeq = next > lastSeq ? next : lastSeq + 1n;
  return lastSeq;
}
