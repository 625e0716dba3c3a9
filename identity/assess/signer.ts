// Signer checks of assess (spec 2.4.2, 2.4.3, 4.2 rule 3): whether the wallet that signed the
// payment belongs to the identity presented, and whether it is on the sanctions list of digital
// currency addresses. Both are answered whenever a signer is given; the list check has no opt-out
// and fails closed: a lookup that cannot answer, or a list not confirmed current within its
// configured age, is `unavailable`, which denies.
import type { SanctionsLookup } from '../../pipeline/sanctions/lookup.ts';
import type { WalletDirectory, WalletNetwork, WalletResolution } from '../wallets/directory.ts';

export interface Signer {
  /** Normalised (EVM lowercased, Solana verbatim); null: the rail carries no wallet signature. */
  address: string | null;
  network: WalletNetwork;
}

/** Who presented themselves: a wallet (X-Wallet-Address) or an operator token's operator. */
export type Claimed = { kind: 'wallet'; network: WalletNetwork; address: string } | { kind: 'operator_token'; operatorId: string };

export interface SignerMatch {
  kind: 'pass' | 'wallet_signer_mismatch' | 'wallet_auth_requires_wallet_signing';
  claimed_operator: string | null;
  signer_operator: string | null;
  expected_signer?: string;
  actual_signer?: string;
  linked_wallets?: readonly string[];
  /** JSON of {action, steps, user_message}, to spread into a gate's 403 body. */
  agent_instructions?: string;
}

export type SignerSanctions =
  | { status: 'clear' }
  /** Spec 2.4.3 has two statuses: `clear` says the lookup answered; `sanctioned` says it found the signer. */
  | { status: 'clear'; sanctioned: true; ofac_label: string; sdn_uid: string; listed_at: string | null }
  | { status: 'unavailable' };

/** Spec 2.4.2: byte-equal after normalisation, or the same person's wallets, pass. */
export function signerMatch(directory: WalletDirectory, claimed: Claimed, signer: Signer): SignerMatch {
  const claimedGroup = claimed.kind === 'wallet' ? directory.resolve(claimed.network, claimed.address) : directory.resolveOperator(claimed.operatorId);
  const claimedOperator = claimedGroup?.resolvedOperator ?? null;
  // An operator token is what a rail without a wallet signature is meant to use: nothing to match.
  if (signer.address === null && claimed.kind === 'operator_token') return { kind: 'pass', claimed_operator: claimedOperator, signer_operator: null };
  if (signer.address === null) {
    return {
      kind: 'wallet_auth_requires_wallet_signing',
      claimed_operator: claimedOperator,
      signer_operator: null,
      agent_instructions: instructions(
        'switch_to_operator_token',
        ['This payment rail carries no wallet signature, so a wallet address cannot identify you here.', 'Send your operator token in X-Operator-Token instead of X-Wallet-Address and retry.'],
        'This merchant needs your operator token for this kind of payment.',
      ),
    };
  }
  const signerGroup = directory.resolve(signer.network, signer.address);
  const signerOperator = signerGroup?.resolvedOperator ?? null;
  const base = { claimed_operator: claimedOperator, signer_operator: signerOperator };
  if (samePerson(claimed, claimedGroup, signer, signerGroup)) return { kind: 'pass', ...base };
  const expected = claimed.kind === 'wallet' ? claimed.address : claimedOperator;
  const linked = claimedGroup?.linkedWallets ?? [];
  return {
    kind: 'wallet_signer_mismatch',
    ...base,
    ...(expected ? { expected_signer: expected } : {}),
    actual_signer: signer.address,
    ...(linked.length > 0 ? { linked_wallets: linked } : {}),
    agent_instructions: instructions(
      'resign_or_switch_to_operator_token',
      [
        `The payment was signed by ${signer.address}, which does not belong to the identity you presented.`,
        expected ? `Sign the payment with ${expected}${linked.length > 1 ? ' or another of linked_wallets' : ''}, or send your operator token in X-Operator-Token, and retry.` : 'Send your operator token in X-Operator-Token and retry.',
      ],
      'The wallet that paid is not linked to your verified identity.',
    ),
  };
}

function samePerson(claimed: Claimed, claimedGroup: WalletResolution | null, signer: Signer, signerGroup: WalletResolution | null): boolean {
  if (claimed.kind === 'wallet') {
    if (claimed.network === signer.network && claimed.address === signer.address) return true;
    return claimedGroup !== null && signerGroup !== null && claimedGroup.group === signerGroup.group;
  }
  // An operator token: a signer tied to nobody yet passes (its first payment; the merchant's
  // capture will tie it to this operator); one tied to another person does not.
  return signerGroup === null || signerGroup.operatorId === claimed.operatorId;
}

/** Spec 2.4.3, fail closed; `maxAgeSeconds`: how long a list stays usable without a good refresh. */
export async function signerSanctions(lookup: SanctionsLookup, signer: Signer & { address: string }, maxAgeSeconds: number): Promise<SignerSanctions> {
  const found = await lookup.check(signer.address, signer.network);
  if (found.status === 'listed') return { status: 'clear', sanctioned: true, ofac_label: found.ofac_label, sdn_uid: found.sdn_uid, listed_at: found.listed_at };
  if (found.status === 'unavailable') return { status: 'unavailable' };
  const freshness = await lookup.freshness().catch(() => null);
  return freshness && freshness.ageSeconds <= maxAgeSeconds ? { status: 'clear' } : { status: 'unavailable' };
}

function instructions(action: string, steps: string[], userMessage: string): string {
  return JSON.stringify({ action, steps, user_message: userMessage });
}
