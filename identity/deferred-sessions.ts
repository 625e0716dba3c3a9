// Verification sessions minted for a denial (assess's verification_session, token_expired's), and
// those of POST /v1/sessions without a context (a gate's auto-sessions), are written only once
// someone uses them. Every denial a verification could fix gets a session of its
// own (a claimed wallet must never hand on another caller's poll secret: docs/decisions.md,
// assess), and most are never opened; a row for each was a writer unit per denial, the largest
// cost of assess (docs/performance.md, "assess").
//
// So such a session is first a signed capability: its id carries the merchant's account, its
// creation time and the SHA-256 of its poll secret under an HMAC with this service's session key.
// The poll secret itself is random and shown once, as any session's: neither the key nor a URL
// gives it up. Reading such a session (the verify page, a poll) needs no row: the id's MAC says
// this service made it, and it is pending until its hour is over. The row is written when the
// person starts a verification on its page (identity/sessions.ts startAttempt), then as any session.
// A session of POST /v1/sessions carries its product_name in its id, when it is short
// (productBytesLimit): the page shows it anyway. One with a context (the merchant's own label,
// which no URL should show) is written at once, as is one with a longer product name.
//
// The key is DATA_DIR/session.key (random, 0600: pipeline/secret-file.ts), made at the first start
// and kept: sessions live an hour, across restarts. Losing it ends the unused sessions (unknown
// then), nothing else. The id is not encrypted: the account id in it is no secret.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { Logger } from '../pipeline/log.ts';
import { newSecret, sha256Hex } from '../pipeline/secrets.ts';
import { readOrCreateSecretFile } from '../pipeline/secret-file.ts';
import { pollSecretPrefix } from './sessions.ts';

// 2: a denial's session (header, account). 3: POST /v1/sessions' (header, product name, account).
const denial = 2;
const requested = 3;
const macBytes = 16;
const hashBytes = 32;
const headerBytes = 1 + 8 + hashBytes; // version, creation time (ms), the poll secret's SHA-256
const noProduct = 0xff;
/** A longer product name (UTF-8 bytes) makes a session a row at once: its id stays short. */
export const productBytesLimit = 64;

export interface SessionLabels {
  context: string | null;
  productName: string | null;
}

/** What a denial's session is labelled with when its row is written. */
const denialLabels: SessionLabels = { context: 'assess', productName: null };

export interface DeferredSession {
  id: string;
  accountId: string;
  createdAt: Date;
  /** Hex SHA-256 of the poll secret, as a row keeps it. */
  pollSecretHash: string;
  labels: SessionLabels;
}

export class DeferredSessions {
  /** `kycProvider`: the provider a session minted here verifies with (the service's). */
  constructor(
    private readonly key: Buffer,
    readonly kycProvider: string,
  ) {}

  /** The key in `dataDir`, made at the first start. */
  static load(dataDir: string, kycProvider: string, log: Logger): DeferredSessions {
    const file = path.join(dataDir, 'session.key');
    const { text } = readOrCreateSecretFile(file, () => randomBytes(32).toString('hex'), log, 'session key');
    if (!/^[0-9a-f]{64}$/.test(text.trim())) {
      throw new Error(`${file} is not a session key (64 hex digits): restore it from a backup, or remove it to make a new one (the denials' sessions not yet used then become unknown)`);
    }
    return new DeferredSessions(Buffer.from(text.trim(), 'hex'), kycProvider);
  }

  /** Whether a session of POST /v1/sessions with these labels can be minted (else it is written at once). */
  static fits(labels: SessionLabels): boolean {
    return labels.context === null && Buffer.byteLength(labels.productName ?? '') <= productBytesLimit;
  }

  /**
   * A new session of `accountId` and its poll secret (the only time it is known): of POST
   * /v1/sessions with `labels` (DeferredSessions.fits them), or a denial's without.
   */
  mint(accountId: string, now: Date, labels?: SessionLabels): DeferredSession & { pollSecret: string } {
    if (labels && !DeferredSessions.fits(labels)) throw new RangeError(`a session with a context, or a product name over ${productBytesLimit} bytes, is written, not minted`);
    const pollSecret = newSecret(pollSecretPrefix);
    const header = Buffer.alloc(headerBytes);
    header.writeUInt8(labels ? requested : denial, 0);
    header.writeBigUInt64BE(BigInt(now.getTime()), 1);
    Buffer.from(sha256Hex(pollSecret), 'hex').copy(header, 9);
    const product = labels ? [productBytes(labels.productName)] : [];
    const payload = Buffer.concat([header, ...product, Buffer.from(accountId, 'utf8')]);
    const id = `sess_${Buffer.concat([payload, this.mac(payload)]).toString('base64url')}`;
    return { id, accountId, createdAt: now, pollSecretHash: sha256Hex(pollSecret), labels: labels ?? denialLabels, pollSecret };
  }

  /** The session `id` names when this service minted it; null for any other id. */
  open(id: string): DeferredSession | null {
    if (!id.startsWith('sess_')) return null;
    const bytes = Buffer.from(id.slice(5), 'base64url');
    // base64url decoding skips what is not of its alphabet: the id must be exactly what was minted.
    if (bytes.length <= headerBytes + macBytes || bytes.toString('base64url') !== id.slice(5)) return null;
    const payload = bytes.subarray(0, bytes.length - macBytes);
    const kind = payload.readUInt8(0);
    if ((kind !== denial && kind !== requested) || !timingSafeEqual(bytes.subarray(bytes.length - macBytes), this.mac(payload))) return null;
    // The MAC holds: this service wrote every byte, so the product name reads as it was written.
    let at = headerBytes;
    let labels = denialLabels;
    if (kind === requested) {
      const length = payload.readUInt8(at++);
      const productName = length === noProduct ? null : payload.subarray(at, at + length).toString('utf8');
      at += length === noProduct ? 0 : length;
      labels = { context: null, productName };
    }
    return {
      id,
      accountId: payload.subarray(at).toString('utf8'),
      createdAt: new Date(Number(payload.readBigUInt64BE(1))),
      pollSecretHash: payload.subarray(9, headerBytes).toString('hex'),
      labels,
    };
  }

  private mac(data: Buffer): Buffer {
    return createHmac('sha256', this.key).update('session id\0').update(data).digest().subarray(0, macBytes);
  }
}

// The product name as its length (0xff: none) and its UTF-8 bytes (fits keeps it under 0xff).
function productBytes(productName: string | null): Buffer {
  if (productName === null) return Buffer.from([noProduct]);
  const text = Buffer.from(productName, 'utf8');
  return Buffer.concat([Buffer.from([text.length]), text]);
}
