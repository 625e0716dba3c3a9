// Verification sessions minted for a denial (assess's verification_session, token_expired's) are
// written only once someone uses them. Every denial a verification could fix gets a session of its
// own (a claimed wallet must never hand on another caller's poll secret: docs/decisions.md,
// assess), and most are never opened; a row for each was a writer unit per denial, the largest
// cost of assess (docs/performance.md, "assess").
//
// So such a session is first a signed capability: its id carries the merchant's account and its
// creation time under an HMAC with this service's session key, and its poll secret is an HMAC of
// the id. Reading one (the verify page, a poll) needs no row: the id's MAC says this service made
// it, and it is pending until its hour is over. The row is written when the person starts a
// verification on its page (identity/sessions.ts startAttempt), from then on as any session.
//
// The key is DATA_DIR/session.key (random, mode 0600), made at the first start and kept: sessions
// live an hour, across restarts. Without it, nobody can make an id or a poll secret that verifies.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pollSecretPrefix } from './sessions.ts';

const version = 1;
const macBytes = 16;
const headerBytes = 1 + 8 + 9; // version, creation time (ms), random

export interface DeferredSession {
  id: string;
  accountId: string;
  createdAt: Date;
  /** The poll secret: derived from the id with the key, so it is never stored. */
  pollSecret: string;
}

export class DeferredSessions {
  /** `kycProvider`: the provider a session minted here verifies with (the service's). */
  constructor(
    private readonly key: Buffer,
    readonly kycProvider: string,
  ) {}

  /** The key in `dataDir`, made (0600) at the first start. */
  static load(dataDir: string, kycProvider: string): DeferredSessions {
    const file = path.join(dataDir, 'session.key');
    if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    if (key.length !== 32) throw new Error(`${file} is not a session key (64 hex digits)`);
    return new DeferredSessions(key, kycProvider);
  }

  mint(accountId: string, now: Date): DeferredSession {
    const header = Buffer.alloc(headerBytes);
    header.writeUInt8(version, 0);
    header.writeBigUInt64BE(BigInt(now.getTime()), 1);
    randomBytes(9).copy(header, 9);
    const payload = Buffer.concat([header, Buffer.from(accountId, 'utf8')]);
    const id = `sess_${Buffer.concat([payload, this.mac('id', payload)]).toString('base64url')}`;
    return { id, accountId, createdAt: now, pollSecret: this.pollSecret(id) };
  }

  /** The session `id` names when this service minted it; null for any other id. */
  open(id: string): DeferredSession | null {
    if (!id.startsWith('sess_')) return null;
    const bytes = Buffer.from(id.slice(5), 'base64url');
    // base64url decoding skips what is not of its alphabet: the id must be exactly what was minted.
    if (bytes.length <= headerBytes + macBytes || bytes.toString('base64url') !== id.slice(5)) return null;
    const payload = bytes.subarray(0, bytes.length - macBytes);
    if (payload.readUInt8(0) !== version || !timingSafeEqual(bytes.subarray(bytes.length - macBytes), this.mac('id', payload))) return null;
    return { id, accountId: payload.subarray(headerBytes).toString('utf8'), createdAt: new Date(Number(payload.readBigUInt64BE(1))), pollSecret: this.pollSecret(id) };
  }

  private pollSecret(id: string): string {
    return `${pollSecretPrefix}${this.mac('poll', Buffer.from(id, 'utf8')).toString('base64url')}`;
  }

  private mac(purpose: string, data: Buffer): Buffer {
    return createHmac('sha256', this.key).update(`${purpose}\0`).update(data).digest().subarray(0, macBytes);
  }
}
