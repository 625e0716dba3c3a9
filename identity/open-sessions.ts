// The open agent session of each (merchant account, identity) that assess handed out, with the poll
// secret it was last handed out with, kept by the owner so that a buyer who keeps calling a gated
// endpoint unverified is answered from memory: without it each such denial was a writer unit (find
// the open session, rotate its poll secret), which set assess's rate and p99 (docs/performance.md,
// "assess"). The rows stay the truth; this is in step with them as the other indexes of
// identity/state.ts are: changed inside the writer's units, undone if the unit rolls back.
//
// An entry lives while its session is pending and unexpired: it is dropped when a verification
// result moves the session on (recordOutcome), read as gone past expires_at, and the oldest go
// first past `maxEntries`. After a restart it is empty: the next denial rotates the secret once.
// The poll secret is held in this process's memory only (the row keeps its hash), as it is while
// it is answered.
import type { WriteTx } from '../pipeline/store/group-commit.ts';
import type { Session } from './sessions.ts';

export interface OpenSession {
  session: Session;
  pollSecret: string;
}

export class OpenSessions {
  private readonly bySubject = new Map<string, OpenSession>();
  private readonly subjectOf = new Map<string, string>();

  constructor(private readonly maxEntries = 100_000) {}

  /** The identity's open session at this merchant at `now`, or null. */
  get(accountId: string, subject: string, now: Date): OpenSession | null {
    const key = keyOf(accountId, subject);
    const open = this.bySubject.get(key);
    if (!open) return null;
    if (open.session.expiresAt.getTime() > now.getTime()) return open;
    this.drop(key, open);
    return null;
  }

  /** Inside the unit that made or rotated the session. */
  remember(tx: WriteTx, accountId: string, subject: string, open: OpenSession): void {
    const key = keyOf(accountId, subject);
    const before = this.bySubject.get(key);
    if (before) this.drop(key, before);
    this.bySubject.set(key, open);
    this.subjectOf.set(open.session.id, key);
    tx.onRollback(() => {
      this.drop(key, open);
      if (before) this.set(key, before);
    });
    if (this.bySubject.size > this.maxEntries) {
      const [oldestKey, oldest] = this.bySubject.entries().next().value!;
      this.drop(oldestKey, oldest);
    }
  }

  /** Inside the unit that moves the session out of pending. */
  forget(tx: WriteTx, sessionId: string): void {
    const key = this.subjectOf.get(sessionId);
    const open = key === undefined ? undefined : this.bySubject.get(key);
    if (key === undefined || !open) return;
    this.drop(key, open);
    tx.onRollback(() => this.set(key, open));
  }

  private set(key: string, open: OpenSession): void {
    this.bySubject.set(key, open);
    this.subjectOf.set(open.session.id, key);
  }

  private drop(key: string, open: OpenSession): void {
    if (this.bySubject.get(key) === open) this.bySubject.delete(key);
    if (this.subjectOf.get(open.session.id) === key) this.subjectOf.delete(open.session.id);
  }
}

const keyOf = (accountId: string, subject: string) => `${accountId} ${subject}`;
