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
// (productBytesLimit); such an id is encrypted (AES-256-GCM under a key derived from the session
// key, the version byte authenticated with it), since ids travel further than the page (to the KYC
// vendor, into logs and agents' transcripts) and a product name may say more than the merchant
// wants there. One with a context (the merchant's own label) is written at once, as is one with a
// longer product name.
//
// The key is DATA_DIR/session.key (random, 0600: pipeline/secret-file.ts), made at the first start
// and kept: sessions live an hour, across restarts. Losing it ends the unused sessions (unknown
// then), nothing else. A denial's id is not encrypted: the account id in it is no secret.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { Logger } from '../pipeline/log.ts';
import { newSecret, sha256Hex } from '../pipeline/secrets.ts';
import { readOrCreateSecretFile } from '../pipeline/secret-file.ts';
import { pollSecretPrefix } from './sessions.ts';

// 2: a denial's session: version, time, hash, account, HMAC. 3: POST /v1/sessions': version,
// nonce, sealed (time, hash, product name, account), tag.
const denial = 2;
const requested = 3;
const macBytes = 16;
const nonceBytes = 12;
const tagBytes = 16;
const hashBytes = 32;
const fixedBytes = 8 + hashBytes; // creation time (ms), the poll secret's SHA-256
const headerBytes = 1 + fixedBytes; // with the version
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
  private readonly sealKey: Buffer;

  /** `kycProvider`: the provider a session minted here verifies with (the service's). */
  constructor(
    private readonly key: Buffer,
    readonly kycProvider: string,
  ) {
    this.sealKey = createHmac('sha256', key).update('session id encryption').digest();
  }

  /** The key in `dataDir`, made at the first start. */
  static load(dataDir: string, kycProvider: string, log: Logger): DeferredSessions {
    const file = path.join(dataDir, 'session.key');
    const { text } = readOrCreateSecretFile(file, () => randomBytes(32).toString('hex'), log, 'session key');
    if (!/^[0-9a-f]{64}$/.test(text.trim())) {
      throw new Error(`${file} is not a session key (64 hex digits): restore it from a backup, or remove it to make a new one (the minted sessions not yet used then become unknown)`);
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
    const fixed = Buffer.alloc(fixedBytes);
    fixed.writeBigUInt64BE(BigInt(now.getTime()), 0);
    Buffer.from(sha256Hex(pollSecret), 'hex').copy(fixed, 8);
    const account = Buffer.from(accountId, 'utf8');
    let bytes: Buffer;
    if (labels) {
      bytes = this.seal(Buffer.concat([fixed, productBytes(labels.productName), account]));
    } else {
      const payload = Buffer.concat([Buffer.from([denial]), fixed, account]);
      bytes = Buffer.concat([payload, this.mac(payload)]);
    }
    return { id: `sess_${bytes.toString('base64url')}`, accountId, createdAt: now, pollSecretHash: sha256Hex(pollSecret), labels: labels ?? denialLabels, pollSecret };
  }

  /** The session `id` names when this service minted it; null for any other id. */
  open(id: string): DeferredSession | null {
    if (!id.startsWith('sess_')) return null;
    const bytes = Buffer.from(id.slice(5), 'base64url');
    // base64url decoding skips what is not of its alphabet: the id must be exactly what was minted.
    if (bytes.length <= headerBytes + macBytes || bytes.toString('base64url') !== id.slice(5)) return null;
    const kind = bytes.readUInt8(0);
    // The fields after the version byte (time, hash), the account's UTF-8, and the labels.
    let fixed: Buffer;
    let account: Buffer;
    let labels = denialLabels;
    if (kind === requested) {
      const opened = this.unseal(bytes);
      if (!opened) return null;
      // Authenticated: this service wrote every byte, so the product name reads as it was written.
      const length = opened.readUInt8(fixedBytes);
      const end = fixedBytes + 1 + (length === noProduct ? 0 : length);
      labels = { context: null, productName: length === noProduct ? null : opened.subarray(fixedBytes + 1, end).toString('utf8') };
      fixed = opened.subarray(0, fixedBytes);
      account = opened.subarray(end);
    } else if (kind === denial) {
      const payload = bytes.subarray(0, bytes.length - macBytes);
      if (!timingSafeEqual(bytes.subarray(bytes.length - macBytes), this.mac(payload))) return null;
      fixed = payload.subarray(1, headerBytes);
      account = payload.subarray(headerBytes);
    } else {
      return null;
    }
    return {
      id,
      accountId: account.toString('utf8'),
      createdAt: new Date(Number(fixed.readBigUInt64BE(0))),
      pollSecretHash: fixed.subarray(8).toString('hex'),
      labels,
    };
  }

  // Version byte, nonce, AES-256-GCM of `plain` (the version byte authenticated with it), tag.
  private seal(plain: Buffer): Buffer {
    const version = Buffer.from([requested]);
    const nonce = randomBytes(nonceBytes);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, nonce);
    cipher.setAAD(version);
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([version, nonce, sealed, cipher.getAuthTag()]);
  }

  private unseal(bytes: Buffer): Buffer | null {
    if (bytes.length < 1 + nonceBytes + fixedBytes + 1 + tagBytes) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, bytes.subarray(1, 1 + nonceBytes));
      decipher.setAAD(bytes.subarray(0, 1));
      decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
      return Buffer.concat([decipher.update(bytes.subarray(1 + nonceBytes, bytes.length - tagBytes)), decipher.final()]);
    } catch {
      return null;
    }
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
