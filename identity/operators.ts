// Operators: the verified humans behind agents, as derived facts only (kyc status and time,
// jurisdiction, age bracket, operator type, the name screening's result and time). A name, street
// address, birth date or document never reaches this module.
import type { Store } from '../pipeline/store/store.ts';
import type { Row } from '../pipeline/store/rows.ts';
import type { WriteTx } from '../pipeline/store/group-commit.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { newId } from '../pipeline/secrets.ts';
import type { AgeBracket } from './kyc/provider.ts';
import type { ScreeningResult } from './screening.ts';
import { at, dateOf, textOf } from './store-values.ts';

export interface Operator {
  id: string;
  kycStatus: 'verified';
  kycProvider: string;
  kycVerifiedAt: Date;
  jurisdiction: string;
  ageVerified: boolean;
  ageBracket: AgeBracket;
  operatorType: 'individual';
  /** The name screening at verification: unavailable when no list could answer (fails closed). */
  sanctionsResult: 'clear' | 'hit' | 'unavailable';
  sanctionsCheckedAt: Date | null;
  sanctionsSdnUid: string | null;
  /** A person's review confirmed the screening's verdict (flagged for good). */
  reviewConfirmed: boolean;
}

export interface NewOperator {
  kycProvider: string;
  jurisdiction: string;
  ageBracket: AgeBracket;
  operatorType: 'individual';
  screening: ScreeningResult;
  now: Date;
}

/**
 * Every operator's facts, in the owner's memory (assess reads them on every call): loaded at start,
 * changed only inside the writer's units, with an undo if the transaction rolls back.
 */
export class OperatorIndex {
  private readonly byId = new Map<string, Operator>();
  private changes = 0;

  static async load(store: Store): Promise<OperatorIndex> {
    const index = new OperatorIndex();
    for (const row of await store.read(sqlFile('identity/operators_all'))) {
      const op = operatorOf(row);
      index.byId.set(op.id, op);
    }
    return index;
  }

  get(id: string): Operator | undefined {
    return this.byId.get(id);
  }

  /** Records a verified operator in the writer's transaction. */
  async insert(tx: WriteTx, op: NewOperator): Promise<Operator> {
    const { screening } = op;
    const operator: Operator = {
      id: newId('op_'),
      kycStatus: 'verified',
      kycProvider: op.kycProvider,
      kycVerifiedAt: op.now,
      jurisdiction: op.jurisdiction,
      ageVerified: op.ageBracket !== null,
      ageBracket: op.ageBracket,
      operatorType: op.operatorType,
      sanctionsResult: screening.status,
      sanctionsCheckedAt: screening.status === 'unavailable' ? null : op.now,
      sanctionsSdnUid: screening.status === 'hit' ? screening.sdnUid : null,
      reviewConfirmed: false,
    };
    await tx.run(sqlFile('identity/operator_insert'), [
      operator.id,
      operator.kycProvider,
      at(op.now),
      operator.jurisdiction,
      operator.ageVerified,
      operator.ageBracket,
      operator.operatorType,
      operator.sanctionsResult,
      operator.sanctionsCheckedAt === null ? null : at(operator.sanctionsCheckedAt),
      operator.sanctionsSdnUid,
      screening.status === 'hit' ? screening.score : null,
      screening.status === 'hit' ? screening.birthCheck : null,
    ]);
    this.byId.set(operator.id, operator);
    tx.onRollback(() => this.byId.delete(operator.id));
    return operator;
  }

  /** A review cleared the operator's screening: clear as of `now`. */
  async markClear(tx: WriteTx, id: string, now: Date): Promise<void> {
    await tx.run(sqlFile('identity/operator_clear_sanctions'), [id, at(now)]);
    const operator = this.byId.get(id);
    if (!operator) return;
    const before = { sanctionsResult: operator.sanctionsResult, sanctionsCheckedAt: operator.sanctionsCheckedAt };
    Object.assign(operator, { sanctionsResult: 'clear', sanctionsCheckedAt: now });
    this.changes++;
    tx.onRollback(() => {
      Object.assign(operator, before);
      this.changes++;
    });
  }

  /** A review confirmed the operator's flag (the session row keeps the decision). */
  markConfirmed(tx: WriteTx, id: string): void {
    const operator = this.byId.get(id);
    if (!operator) return;
    operator.reviewConfirmed = true;
    this.changes++;
    tx.onRollback(() => {
      operator.reviewConfirmed = false;
      this.changes++;
    });
  }

  /**
   * Changes whenever an operator's screening result does (a review clears or confirms it): which verification
   * a credential speaks for (identity/wallets/directory.ts) depends on it.
   */
  get revision(): number {
    return this.changes;
  }
}

function operatorOf(row: Row): Operator {
  return {
    id: String(row.id),
    kycStatus: 'verified',
    kycProvider: String(row.kyc_provider),
    kycVerifiedAt: dateOf(row.kyc_verified_at)!,
    jurisdiction: String(row.jurisdiction),
    ageVerified: Boolean(row.age_verified),
    ageBracket: textOf(row.age_bracket) as AgeBracket,
    operatorType: 'individual',
    sanctionsResult: String(row.sanctions_result) as Operator['sanctionsResult'],
    sanctionsCheckedAt: dateOf(row.sanctions_checked_at),
    sanctionsSdnUid: textOf(row.sanctions_sdn_uid),
    reviewConfirmed: row.match_confirmed === true,
  };
}

/**
 * Spec 2.2: true only when screened clear within the freshness window, false on a hit, null when
 * never screened (or the list was unavailable) or the clear screening is older than the window.
 */
export function sanctionsClear(op: Operator, now: Date, freshnessDays: number): boolean | null {
  if (op.sanctionsResult === 'hit') return false;
  if (op.sanctionsResult !== 'clear' || !op.sanctionsCheckedAt) return null;
  return now.getTime() - op.sanctionsCheckedAt.getTime() <= freshnessDays * 86_400_000 ? true : null;
}

/** The account_verification object of spec 2.2; only `kyc_status: none` without an operator. */
export function accountVerification(op: Operator | null, now: Date, freshnessDays: number): Record<string, unknown> {
  if (!op) return { kyc_status: 'none' };
  return {
    kyc_status: op.kycStatus,
    kyc_verified_at: op.kycVerifiedAt.toISOString(),
    jurisdiction: op.jurisdiction,
    age_verified: op.ageVerified,
    ...(op.ageBracket ? { age_bracket: op.ageBracket } : {}),
    sanctions_clear: sanctionsClear(op, now, freshnessDays),
    sanctions_checked_at: op.sanctionsCheckedAt?.toISOString() ?? null,
    operator_type: op.operatorType,
  };
}
