// The prune-credentials job: what credentials leave behind once nothing can use them, deleted
// CREDENTIAL_RETENTION_DAYS after that point. Every login and every refresh exchange adds an
// operator token and a refresh token, and the owner keeps all of them in memory (identity/tokens.ts,
// identity/refresh.ts): without this the tables and the owner's memory grow for good.
//   - operator tokens expired before the cutoff, unless a wallet capture names one not revoked (a
//     capture counts while its token is not revoked, identity/wallets/directory.ts: such a token
//     stays with its captures; a missing one reads as revoked, so a revoked one can go);
//   - refresh tokens of families that expired before it;
//   - wallet claim challenges that expired before it.
// Until the cutoff an expired token is told apart from an unknown one (token_expired, spec 3.2);
// after it, it is unknown (invalid_credential): its holder starts again either way.
//
// In the owner (a running server) the same writer unit forgets them in memory, and a rollback
// brings them back; run by the CLI with no server, there is no memory to change.
import type { Store } from '../pipeline/store/store.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { at, retentionCutoff } from './store-values.ts';
import type { IdentityState } from './state.ts';

export interface PrunedCredentials {
  operatorTokens: number;
  refreshTokens: number;
  walletChallenges: number;
  cutoff: string;
}

export async function pruneCredentials(
  store: Pick<Store, 'writeOperational'>,
  state: Pick<IdentityState, 'tokens' | 'refresh'> | null,
  retentionDays: number,
  now: Date,
): Promise<PrunedCredentials> {
  const cutoff = retentionCutoff(now, retentionDays);
  // The identity half writes through the operational writer: the same one as its issues and revocations.
  return store.writeOperational(async (tx) => {
    const tokens = await tx.all(sqlFile('identity/tokens_prune'), [at(cutoff)]);
    state?.tokens.forget(tx, tokens.map((r) => ({ id: String(r.id), hash: String(r.token_hash) })));
    const refresh = await tx.all(sqlFile('identity/refresh_prune'), [at(cutoff)]);
    state?.refresh.forget(tx, refresh.map((r) => String(r.token_hash)));
    const challenges = await tx.all(sqlFile('identity/wallet_challenges_prune'), [at(cutoff)]);
    return { operatorTokens: tokens.length, refreshTokens: refresh.length, walletChallenges: challenges.length, cutoff: cutoff.toISOString() };
  });
}
